// The call waiting for a person, above the composer: what will run (the
// command, the diff of an edit, the file a write creates, an MCP call's
// arguments), why it asks, and the answers: allow once, always allow in this
// project (a rule written to .ava/settings.local.json), or deny with a note
// for the model. Keys: y allow once, a always, n deny (outside text fields).
import { useEffect, useId, useRef, useState } from "react";
import { createPatch } from "diff";
import type { ApprovalDecisionRequest } from "../api/protocol.gen";
import type { ToolItem } from "../model/conversation";
import { DiffView } from "./ItemView";

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The unified diff an edit call would make, from its old/new strings. */
export function editPreview(item: ToolItem): string {
  const args = item.args ?? {};
  const path = str(args.path) ?? str(args.file_path) ?? "file";
  const edits: unknown[] = Array.isArray(args.edits) ? args.edits : [args];
  return edits
    .map((edit) => {
      const e = (edit ?? {}) as Record<string, unknown>;
      const before = str(e.oldText) ?? str(e.old_string) ?? "";
      const after = str(e.newText) ?? str(e.new_string) ?? "";
      // The header lines of all but the first patch say nothing new.
      return createPatch(path, before.endsWith("\n") ? before : before + "\n", after.endsWith("\n") ? after : after + "\n", "", "", { context: 3 })
        .split("\n")
        .filter((line) => !line.startsWith("Index:") && !line.startsWith("====") && line !== "\\ No newline at end of file")
        .join("\n");
    })
    .join("\n");
}

function WhatRuns({ item }: { item: ToolItem }) {
  const args = item.args ?? {};
  if (item.name === "bash") {
    return (
      <pre className="command" aria-label="Command to run">
        <span className="prompt">$ </span>
        {str(args.command) ?? item.argumentsText}
      </pre>
    );
  }
  if (item.name === "edit") return <DiffView diff={editPreview(item)} />;
  if (item.name === "write") {
    const path = str(args.path) ?? str(args.file_path) ?? "file";
    const content = str(args.content) ?? "";
    return <DiffView diff={createPatch(path, "", content.endsWith("\n") || !content ? content : content + "\n", "", "").split("\n").slice(2).join("\n")} />;
  }
  return (
    <pre className="args" aria-label="Arguments">
      {item.args ? JSON.stringify(item.args, null, 2) : item.argumentsText}
    </pre>
  );
}

function isTextField(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);
}

export function ApprovalCard({ item, more, onDecide }: { item: ToolItem; more: number; onDecide: (answer: ApprovalDecisionRequest) => Promise<string | null> }) {
  const approval = item.approval!;
  const [rule, setRule] = useState(approval.suggestedRules[0] ?? "");
  const [denying, setDenying] = useState(false);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const noteRef = useRef<HTMLInputElement>(null);
  const titleId = useId();

  const answer = async (body: ApprovalDecisionRequest) => {
    setBusy(true);
    setError("");
    const problem = await onDecide(body);
    setBusy(false);
    if (problem) setError(problem);
  };
  const allowOnce = () => void answer({ decision: "allow", scope: "once" });
  const allowAlways = () => rule && void answer({ decision: "allow", scope: "project", rule });
  const deny = () => void answer({ decision: "deny", message: note.trim() });

  // Reset when another call comes up; focus the note when denying.
  useEffect(() => {
    setRule(approval.suggestedRules[0] ?? "");
    setDenying(false);
    setNote("");
    setError("");
  }, [approval.id, approval.suggestedRules]);
  useEffect(() => {
    if (denying) noteRef.current?.focus();
  }, [denying]);

  // Keyboard answers, away from text fields so typing never decides.
  const keys = useRef({ allowOnce, allowAlways, busy });
  keys.current = { allowOnce, allowAlways, busy };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTextField(e.target) || keys.current.busy) return;
      if (e.key === "y") keys.current.allowOnce();
      else if (e.key === "a") keys.current.allowAlways();
      else if (e.key === "n") setDenying(true);
      else return;
      e.preventDefault();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  return (
    <section className="card approval" role="region" aria-labelledby={titleId} data-testid="approval-card" data-approval={approval.id}>
      <header>
        <h2 id={titleId}>
          {item.name === "bash" ? "Run this command?" : item.name === "edit" || item.name === "write" ? `${item.name === "edit" ? "Edit" : "Write"} ${str(item.args?.path) ?? str(item.args?.file_path) ?? "a file"}?` : `Call ${item.name}?`}
        </h2>
        {more > 0 && <span className="badge">{more} more waiting</span>}
      </header>
      <p className="muted approval-reason">
        {approval.reason}
        {approval.rule && (
          <>
            {" "}
            (rule <code>{approval.rule}</code>)
          </>
        )}
      </p>
      <WhatRuns item={item} />
      {denying ? (
        <form
          className="approval-actions"
          onSubmit={(e) => {
            e.preventDefault();
            deny();
          }}
        >
          <label className="grow">
            <span className="sr-only">Note to the model</span>
            <input ref={noteRef} value={note} onChange={(e) => setNote(e.target.value)} placeholder="What to do instead (optional)" onKeyDown={(e) => e.key === "Escape" && setDenying(false)} />
          </label>
          <button type="submit" className="danger" disabled={busy}>
            Deny
          </button>
          <button type="button" onClick={() => setDenying(false)} disabled={busy}>
            Back
          </button>
        </form>
      ) : (
        <div className="approval-actions">
          <button type="button" className="primary" onClick={allowOnce} disabled={busy} aria-keyshortcuts="y">
            Allow once <kbd>y</kbd>
          </button>
          {approval.suggestedRules.length > 0 && (
            <span className="always">
              <button type="button" onClick={allowAlways} disabled={busy || !rule} aria-keyshortcuts="a">
                Always allow in this project <kbd>a</kbd>
              </button>
              {approval.suggestedRules.length > 1 ? (
                <select aria-label="Rule to allow" value={rule} onChange={(e) => setRule(e.target.value)}>
                  {approval.suggestedRules.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              ) : (
                <code className="rule">{rule}</code>
              )}
            </span>
          )}
          <button type="button" className="danger" onClick={() => setDenying(true)} disabled={busy} aria-keyshortcuts="n">
            Deny… <kbd>n</kbd>
          </button>
        </div>
      )}
      {error && (
        <div role="alert" className="form-error">
          {error}
        </div>
      )}
    </section>
  );
}
