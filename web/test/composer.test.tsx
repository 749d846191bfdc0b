// The composer's slash-command completion: names from the commands route,
// arrows to choose, Tab or Enter to complete, Escape to close, and Enter
// sending as before once the name is complete.
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SlashCommandInfo } from "../src/api/protocol.gen";
import { Composer, matchingCommands } from "../src/ui/Composer";

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
