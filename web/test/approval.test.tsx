import { act } from "react";
import { createRoot } from "react-dom/client";
import { describe, expect, it, vi } from "vitest";
import type { ApprovalDecisionRequest, ConversationEvent } from "../src/api/protocol.gen";
import { initialState, pendingApprovals, reduce, type ToolItem } from "../src/model/conversation";
import { ApprovalCard, editPreview } from "../src/ui/ApprovalCard";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const T = "turn-1";
// As ava-backend sends them (snake_case, the session log's own fields).
const asked: ConversationEvent[] = [
  { seq: 1, ts: 1, turn_id: T, type: "turn_start" },
  { content: [{ arguments: '{"command":"npm test"}', id: "c1", name: "bash", type: "tool_call" }], seq: 2, step: 1, ts: 2, turn_id: T, type: "assistant" },
  {
    approval_id: "ap-1",
    arguments: { command: "npm test" },
    call_id: "c1",
    category: "execute",
    reason: "execute calls need approval in ask mode",
    seq: 3,
    step: 1,
    suggested_rules: ["bash(npm test:*)", "bash(npm:*)"],
    tool_name: "bash",
    ts: 3,
    turn_id: T,
    type: "approval_requested",
  },
] as ConversationEvent[];

const run = (events: ConversationEvent[]) => reduce(initialState("c"), { type: "events", events });

describe("approvals in the conversation model", () => {
  it("a request makes the call wait; the decision lets it run; the result ends it", () => {
    let s = run(asked);
    const waiting = pendingApprovals(s);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ status: "waiting", approval: { id: "ap-1", suggestedRules: ["bash(npm test:*)", "bash(npm:*)"], decided: null } });

    s = reduce(s, { type: "events", events: [{ approval_id: "ap-1", call_id: "c1", decision: "allow", scope: "once", seq: 4, ts: 4, type: "approval_decided" } as ConversationEvent] });
    expect(pendingApprovals(s)).toHaveLength(0);
    expect((s.items[0] as ToolItem).status).toBe("running");
    s = reduce(s, { type: "events", events: [{ call_id: "c1", content: [], seq: 5, status: "ok", step: 1, tool_name: "bash", ts: 5, turn_id: T, type: "tool_result" } as unknown as ConversationEvent] });
    expect((s.items[0] as ToolItem).status).toBe("ok");
  });

  it("an abort while waiting leaves nothing pending", () => {
    const s = run([...asked, { reason: "aborted", seq: 4, ts: 4, turn_id: T, type: "turn_end" } as ConversationEvent]);
    expect(pendingApprovals(s)).toHaveLength(0);
    expect((s.items[0] as ToolItem).status).toBe("interrupted");
  });

  it("a request for an unknown call, or a decision for another id, changes nothing", () => {
    const s = run([...asked.slice(0, 2), { ...asked[2], call_id: "nope" } as ConversationEvent]);
    expect(pendingApprovals(s)).toHaveLength(0);
    const t = reduce(run(asked), { type: "events", events: [{ approval_id: "other", call_id: "c1", decision: "allow", scope: "once", seq: 4, ts: 4, type: "approval_decided" } as ConversationEvent] });
    expect(pendingApprovals(t)).toHaveLength(1);
  });

  it("the mode a person chose is kept and noted", () => {
    const s = run([{ mode: "plan", seq: 1, ts: 1, type: "permission_mode" } as ConversationEvent]);
    expect(s.permissionMode).toBe("plan");
    expect(s.items[0]).toMatchObject({ kind: "notice", text: "Permission mode set to plan" });
  });
});

async function mount(item: ToolItem, onDecide: (a: ApprovalDecisionRequest) => Promise<string | null>) {
  const container = document.createElement("div");
  document.body.appendChild(container);
  await act(async () => createRoot(container).render(<ApprovalCard item={item} more={0} onDecide={onDecide} />));
  return container;
}

const press = (key: string) => act(async () => void dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true })));
const click = (el: Element | null | undefined) => act(async () => void (el as HTMLElement).click());
const button = (root: HTMLElement, text: string) => [...root.querySelectorAll("button")].find((b) => b.textContent?.startsWith(text));

describe("the approval card", () => {
  const item = pendingApprovals(run(asked))[0];

  it("shows the command and why it asks; y allows once", async () => {
    const onDecide = vi.fn(async () => null);
    const root = await mount(item, onDecide);
    expect(root.querySelector('[aria-label="Command to run"]')?.textContent).toBe("$ npm test");
    expect(root.textContent).toContain("execute calls need approval in ask mode");
    await press("y");
    expect(onDecide).toHaveBeenCalledWith({ decision: "allow", scope: "once" });
  });

  it("always allow writes the chosen rule for the project", async () => {
    const onDecide = vi.fn(async () => null);
    const root = await mount(item, onDecide);
    const select = root.querySelector("select") as HTMLSelectElement;
    await act(async () => {
      select.value = "bash(npm:*)";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await click(button(root, "Always allow"));
    expect(onDecide).toHaveBeenCalledWith({ decision: "allow", scope: "project", rule: "bash(npm:*)" });
  });

  it("deny takes a note for the model; a stale answer shows the server's reason", async () => {
    const onDecide = vi.fn(async () => "Already answered: no pending approval ap-1");
    const root = await mount(item, onDecide);
    await press("n");
    const input = root.querySelector("input") as HTMLInputElement;
    expect(document.activeElement).toBe(input);
    // Typing in the note never answers the card.
    await act(async () => void input.dispatchEvent(new KeyboardEvent("keydown", { key: "y", bubbles: true })));
    expect(onDecide).not.toHaveBeenCalled();
    await act(async () => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
      setter.call(input, "use make instead");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await click(button(root, "Deny"));
    expect(onDecide).toHaveBeenCalledWith({ decision: "deny", message: "use make instead" });
    expect(root.querySelector('[role="alert"]')?.textContent).toContain("Already answered");
  });

  it("an edit shows the diff it would make", () => {
    const edit = { ...item, name: "edit", args: { path: "src/x.cpp", edits: [{ old_string: "int a;\nint b;", new_string: "int a;\nlong b;" }] } };
    const diff = editPreview(edit);
    expect(diff).toContain("-int b;");
    expect(diff).toContain("+long b;");
    expect(diff).toContain("--- src/x.cpp");
  });
});
