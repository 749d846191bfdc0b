import { act } from "react";
import { createRoot } from "react-dom/client";
import { describe, expect, it } from "vitest";
import type { ToolItem, ViewItem } from "../src/model/conversation";
import { ItemView } from "../src/ui/ItemView";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

async function render(item: ViewItem): Promise<HTMLElement> {
  const container = document.createElement("div");
  await act(async () => createRoot(container).render(<ItemView item={item} />));
  return container;
}

const tool = (over: Partial<ToolItem>): ToolItem => ({ kind: "tool", key: "t", callId: "c", turnId: "t", name: "bash", argumentsText: "{}", args: {}, status: "ok", output: "", details: null, approval: null, ...over });

describe("tool cards", () => {
  it("bash: command, exit status, truncation", async () => {
    const el = await render(tool({ args: { command: "make -j2" }, status: "error", output: "a\n[output truncated: 5000 of 9000 bytes omitted from the middle]\nb\n[exit code 2]", details: { exit_code: 2, signal: null, omitted_bytes: 5000, output_bytes: 9000, duration_ms: 1500 } }));
    expect(el.querySelector('[aria-label="Command"]')?.textContent).toContain("make -j2");
    expect(el.querySelector('[data-testid="exit-status"]')?.textContent).toBe("exit 2 · 1.5 s");
    expect(el.querySelector('[role="note"]')?.textContent).toContain("4.9 KiB of 8.8 KiB omitted");
    expect(el.querySelector(".marker")?.textContent).toContain("output truncated");
    expect(el.querySelector("section")?.getAttribute("data-status")).toBe("error");
  });

  it("edit: a diff view from details", async () => {
    const diff = "--- a/src/x.cpp\n+++ b/src/x.cpp\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+long b;\n";
    const el = await render(tool({ name: "edit", args: { path: "src/x.cpp" }, details: { path: "/p/src/x.cpp", replacements: 1, diff } }));
    expect(el.querySelector(".diff-add")?.textContent).toBe("+long b;\n");
    expect(el.querySelector(".diff-del")?.textContent).toBe("-int b;\n");
    expect(el.querySelector(".path")?.textContent).toContain("/p/src/x.cpp");
  });

  it("write and read: path and size", async () => {
    const w = await render(tool({ name: "write", args: { path: "a.txt", content: "hello" }, details: { path: "/p/a.txt", bytes: 2048, created: true } }));
    expect(w.querySelector(".path")?.textContent).toBe("/p/a.txt · 2.0 KiB · created");
    const r = await render(tool({ name: "read", args: { path: "a.txt" }, output: "1\thello", details: { path: "/p/a.txt", lines: 1, total_lines: 40 } }));
    expect(r.querySelector(".path")?.textContent).toContain("1 line of 40");
  });

  it("collapses by keyboard-accessible buttons", async () => {
    const el = await render(tool({ args: { command: "ls" } }));
    const button = el.querySelector("button.disclosure") as HTMLButtonElement;
    expect(button.getAttribute("aria-expanded")).toBe("true");
    await act(async () => button.click());
    expect(button.getAttribute("aria-expanded")).toBe("false");
    expect(el.querySelector('[aria-label="Command"]')).toBeNull();
  });
});

describe("assistant markdown", () => {
  it("highlights code and escapes raw HTML and unsafe links", async () => {
    const el = await render({ kind: "assistant", key: "a", turnId: "t", step: 1, live: false, text: "Hi <img src=x onerror=alert(1)> [x](javascript:alert(1))\n\n```cpp\nint main() { return 0; }\n```" });
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector("a")).toBeNull();
    expect(el.textContent).toContain("<img src=x onerror=alert(1)>");
    expect(el.querySelector("pre code.language-cpp .hljs-keyword, pre code.language-cpp .hljs-type")).not.toBeNull();
  });
});
