// The composer's slash-command completion: names from the commands route,
// arrows to choose, Tab or Enter to complete, Escape to close, and Enter
// sending as before once the name is complete.
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SlashCommandInfo } from "../src/api/protocol.gen";
import { Composer, insertMention, matchingCommands, mentionAt } from "../src/ui/Composer";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const commands: SlashCommandInfo[] = [
  { name: "review", description: "Review a file", argumentHint: "FILE", scope: "project" },
  { name: "release", description: "Cut a release", argumentHint: "", scope: "user" },
  { name: "frontend:test", description: "Run the UI tests", argumentHint: "", scope: "project" },
];

async function render(onSend = vi.fn(async () => true)) {
  const container = document.createElement("div");
  document.body.appendChild(container);
  await act(async () => createRoot(container).render(<Composer running={false} onSend={onSend} commands={commands} />));
  return { container, onSend, textarea: container.querySelector("textarea")! };
}

function type(element: HTMLTextAreaElement, value: string) {
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!.call(element, value);
  element.dispatchEvent(new Event("input", { bubbles: true }));
}

const key = (element: HTMLElement, name: string) =>
  act(async () => {
    element.dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true }));
  });

const options = (root: HTMLElement) => [...root.querySelectorAll('[role="option"]')].map((o) => o.querySelector(".command-name")!.textContent);

describe("slash-command completion", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  it("matches names while only the name is typed", () => {
    expect(matchingCommands("/re", commands).map((c) => c.name)).toEqual(["review", "release"]);
    expect(matchingCommands("/", commands)).toHaveLength(3);
    expect(matchingCommands("/FRONT", commands).map((c) => c.name)).toEqual(["frontend:test"]);
    expect(matchingCommands("/review src", commands)).toEqual([]);
    expect(matchingCommands("hello /re", commands)).toEqual([]);
  });

  it("lists, chooses and completes with the keyboard, then sends", async () => {
    const { container, onSend, textarea } = await render();
    await act(async () => type(textarea, "/re"));
    expect(options(container)).toEqual(["/review", "/release"]);
    expect(textarea.getAttribute("aria-expanded")).toBe("true");
    expect(container.querySelector('[aria-selected="true"]')?.textContent).toContain("Review a file");
    await key(textarea, "ArrowDown");
    expect(textarea.getAttribute("aria-activedescendant")).toBe("composer-command-1");
    await key(textarea, "Enter");
    expect(textarea.value).toBe("/release ");
    expect(onSend).not.toHaveBeenCalled();
    expect(options(container)).toEqual([]);
    await act(async () => type(textarea, "/release 1.2"));
    await key(textarea, "Enter");
    expect(onSend).toHaveBeenCalledWith("/release 1.2", "followup", []);
  });

  it("closes on Escape and completes on a click", async () => {
    const { container, textarea } = await render();
    await act(async () => type(textarea, "/"));
    await key(textarea, "Escape");
    expect(options(container)).toEqual([]);
    await act(async () => type(textarea, "/f"));
    const option = container.querySelector<HTMLElement>('[role="option"]')!;
    await act(async () => {
      option.dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
    });
    expect(textarea.value).toBe("/frontend:test ");
  });
});

describe("@ file mentions", () => {
  afterEach(() => {
    document.body.innerHTML = "";
    vi.unstubAllGlobals();
  });

  it("finds the mention at the caret only after a space or at the start", () => {
    expect(mentionAt("see @src/ma", 11)).toEqual({ start: 4, query: "src/ma" });
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAt("mail me@host", 12)).toBeNull();
    expect(mentionAt("see @src done", 13)).toBeNull();
    expect(insertMention("see @ma and", 4, 7, "src/main.cpp")).toEqual({ text: "see @src/main.cpp  and", caret: 18 });
  });

  it("asks the project's files and inserts the chosen path", async () => {
    const asked: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        asked.push(url);
        const body = { query: "mai", matches: [{ path: "src/main.cpp", positions: [4, 5, 6] }, { path: "docs/main.md", positions: [5, 6, 7] }], searched: 2, truncated: false };
        return new Response(JSON.stringify(body), { status: 200 });
      }),
    );
    const container = document.createElement("div");
    document.body.appendChild(container);
    await act(async () => createRoot(container).render(<Composer running={false} onSend={vi.fn(async () => true)} projectId="p1" />));
    const textarea = container.querySelector("textarea")!;
    await act(async () => type(textarea, "look at @mai"));
    await act(async () => new Promise((resolve) => setTimeout(resolve, 200)));
    expect(asked[asked.length - 1]).toBe("/api/projects/p1/files/search?q=mai&limit=8");
    expect(options(container)).toEqual(["@src/main.cpp", "@docs/main.md"]);
    expect(container.querySelector("mark")?.textContent).toBe("mai");
    await key(textarea, "ArrowDown");
    await key(textarea, "Enter");
    expect(textarea.value).toBe("look at @docs/main.md ");
    expect(options(container)).toEqual([]);
  });
});
