import { memo, useContext, useState } from "react";
import type { CommandItem, NoticeItem, ThinkingItem, ToolItem, ViewItem } from "../model/conversation";
import { renderMarkdown } from "./markdown";
import { SubagentOpener } from "./SubagentPanel";

const STATUS_LABEL: Record<ToolItem["status"], string> = {
  running: "running",
  waiting: "waiting for approval",
  ok: "ok",
  error: "error",
  interrupted: "interrupted",
  skipped: "skipped",
};

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const PREVIEW_LINES = 30;

/** Tool output, collapsed to its first lines when long; truncation lines stay visible. */
function Output({ text, label }: { text: string; label: string }) {
  const [open, setOpen] = useState(false);
  if (!text) return null;
  const lines = text.split("\n");
  const long = lines.length > PREVIEW_LINES;
  const shown = !long || open ? text : lines.slice(0, PREVIEW_LINES).join("\n");
  return (
    <div className="tool-output">
      <pre aria-label={label}>
        {shown.split("\n").map((line, i) => (
          <span key={i} className={/^\[(output truncated|cancelled|Interrupted|exit code|timed out)/.test(line) ? "marker" : undefined}>
            {line}
            {"\n"}
          </span>
        ))}
      </pre>
      {long && (
        <button type="button" className="link" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? "Show less" : `Show all ${lines.length} lines`}
        </button>
      )}
    </div>
  );
}

export function DiffView({ diff }: { diff: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre className="diff" aria-label="Diff">
      {lines.map((line, i) => {
        const cls = line.startsWith("+++") || line.startsWith("---") ? "diff-file" : line.startsWith("@@") ? "diff-hunk" : line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-del" : line.startsWith("[") ? "marker" : "diff-ctx";
        return (
          <span key={i} className={cls}>
            {line}
            {"\n"}
          </span>
        );
      })}
    </pre>
  );
}

function BashBody({ item }: { item: ToolItem }) {
  const d = item.details ?? {};
  const exit = num(d.exit_code);
  const signal = num(d.signal);
  const omitted = num(d.omitted_bytes) ?? 0;
  const total = num(d.output_bytes);
  const parts: string[] = [];
  if (exit !== undefined) parts.push(`exit ${exit}`);
  if (signal !== undefined) parts.push(`signal ${signal}`);
  if (d.timed_out === true) parts.push("timed out");
  if (d.cancelled === true) parts.push("cancelled");
  const duration = num(d.duration_ms);
  if (duration !== undefined) parts.push(duration < 1000 ? `${duration} ms` : `${(duration / 1000).toFixed(1)} s`);
  return (
    <>
      <pre className="command" aria-label="Command">
        <span className="prompt">$ </span>
        {str(item.args?.command) ?? item.argumentsText}
      </pre>
      {parts.length > 0 && (
        <div className={"exit" + ((exit !== undefined && exit !== 0) || signal !== undefined || d.timed_out === true || d.cancelled === true ? " bad" : "")} data-testid="exit-status">
          {parts.join(" · ")}
        </div>
      )}
      {omitted > 0 && (
        <div className="truncated" role="note">
          Output truncated: {humanBytes(omitted)} of {total !== undefined ? humanBytes(total) : "?"} omitted from the middle
        </div>
      )}
      <Output text={item.output} label="Output" />
    </>
  );
}

function EditBody({ item }: { item: ToolItem }) {
  const d = item.details ?? {};
  const diff = str(d.diff);
  const path = str(d.path) ?? str(item.args?.path) ?? str(item.args?.file_path) ?? "";
  const replacements = num(d.replacements);
  return (
    <>
      <div className="path">
        {path}
        {replacements !== undefined && <span className="muted"> · {replacements} replacement{replacements === 1 ? "" : "s"}</span>}
      </div>
      {diff ? <DiffView diff={diff} /> : <Output text={item.output} label="Output" />}
      {diff && item.status !== "ok" && <Output text={item.output} label="Output" />}
    </>
  );
}

function FileBody({ item }: { item: ToolItem }) {
  const d = item.details ?? {};
  const path = str(d.path) ?? str(item.args?.path) ?? str(item.args?.file_path) ?? "";
  const bytes = num(d.bytes) ?? (item.name === "write" && typeof item.args?.content === "string" ? new TextEncoder().encode(item.args.content).length : undefined);
  const lines = num(d.lines);
  const total = num(d.total_lines);
  const size: string[] = [];
  if (bytes !== undefined) size.push(humanBytes(bytes));
  if (lines !== undefined) size.push(`${lines} line${lines === 1 ? "" : "s"}${total !== undefined ? ` of ${total}` : ""}`);
  if (item.name === "read" && bytes === undefined && item.output) size.push(humanBytes(new TextEncoder().encode(item.output).length) + " shown");
  if (d.created === true) size.push("created");
  return (
    <>
      <div className="path">
        {path}
        {size.length > 0 && <span className="muted"> · {size.join(" · ")}</span>}
      </div>
      {item.status !== "ok" && <Output text={item.output} label="Output" />}
    </>
  );
}

function GenericBody({ item }: { item: ToolItem }) {
  const [server, tool] = item.name.includes("__") ? item.name.split("__", 2) : ["", item.name];
  return (
    <>
      {server && (
        <div className="path">
          MCP server <b>{server}</b> · tool <b>{tool}</b>
        </div>
      )}
      {item.argumentsText && item.argumentsText !== "{}" && (
        <pre className="args" aria-label="Arguments">
          {item.args ? JSON.stringify(item.args, null, 2) : item.argumentsText}
        </pre>
      )}
      <Output text={item.output} label="Output" />
    </>
  );
}

/** A `task` call: which subagent, its task, its report, and a way into its own log. */
function TaskBody({ item }: { item: ToolItem }) {
  const open = useContext(SubagentOpener);
  const a = item.args ?? {};
  const sub = (item.details ?? {}).subagent as Record<string, unknown> | undefined;
  const sessionId = str(sub?.sessionId);
  const agent = str(sub?.agent) ?? str(a.agent) ?? "subagent";
  const steps = num(sub?.steps);
  return (
    <>
      <div className="path">
        Subagent <b>{agent}</b>
        {steps !== undefined && <span className="muted"> · {steps} step{steps === 1 ? "" : "s"}</span>}
        {sessionId && open && (
          <button type="button" className="link" onClick={() => open({ sessionId, agent })} data-testid="open-subagent">
            Open its log
          </button>
        )}
      </div>
      {str(a.prompt) && (
        <details className="task-prompt">
          <summary>Task</summary>
          <pre aria-label="Task">{str(a.prompt)}</pre>
        </details>
      )}
      {item.output && <div className="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.output) }} />}
    </>
  );
}

function toolTitle(item: ToolItem): string {
  const a = item.args ?? {};
  const path = str((item.details ?? {}).path) ?? str(a.path) ?? str(a.file_path);
  switch (item.name) {
    case "bash":
      return "bash";
    case "edit":
      return `edit ${path ?? ""}`;
    case "read":
      return `read ${path ?? ""}`;
    case "write":
      return `write ${path ?? ""}`;
    case "task":
      return `task: ${str(a.description) ?? str(a.agent) ?? ""}`;
    default:
      return item.name;
  }
}

export function ToolCard({ item }: { item: ToolItem }) {
  const [collapsed, setCollapsed] = useState(false);
  const bodyId = `tool-body-${item.callId}`;
  const Body =
    item.name === "bash" ? BashBody : item.name === "edit" ? EditBody : item.name === "read" || item.name === "write" ? FileBody : item.name === "task" ? TaskBody : GenericBody;
  return (
    <section className={`card tool tool-${item.status}`} aria-label={`Tool ${item.name}, ${STATUS_LABEL[item.status]}`} data-tool={item.name} data-status={item.status}>
      <header>
        <button type="button" className="disclosure" aria-expanded={!collapsed} aria-controls={bodyId} onClick={() => setCollapsed(!collapsed)}>
          <span aria-hidden="true">{collapsed ? "▸" : "▾"}</span> <span className="tool-name">{toolTitle(item)}</span>
        </button>
        <span className={`badge status-${item.status}`}>{STATUS_LABEL[item.status]}</span>
      </header>
      {!collapsed && (
        <div id={bodyId} className="tool-body">
          <Body item={item} />
        </div>
      )}
    </section>
  );
}

function Thinking({ item }: { item: ThinkingItem }) {
  const [open, setOpen] = useState(item.live);
  const id = `thinking-${item.key}`;
  return (
    <section className="card thinking" aria-label="Thinking">
      <button type="button" className="disclosure" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> Thinking{item.live ? "…" : ""}
      </button>
      {open && (
        <div id={id} className="thinking-body">
          {item.redacted ? <em>(redacted by the provider)</em> : item.text}
        </div>
      )}
    </section>
  );
}

function Notice({ item }: { item: NoticeItem }) {
  return (
    <div className={`notice notice-${item.level}`} role={item.level === "error" ? "alert" : "note"} data-level={item.level}>
      {item.text}
    </div>
  );
}

/** A built-in command and the agent's own answer to it (never the model's). */
function Command({ item }: { item: CommandItem }) {
  return (
    <section className="card command" aria-label={`/${item.command}`} data-kind="command">
      <div className="who">
        <code>{item.text}</code>
      </div>
      <div className="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.output) }} />
    </section>
  );
}

export const ItemView = memo(function ItemView({ item }: { item: ViewItem }) {
  switch (item.kind) {
    case "user":
      return (
        <div className={"msg user" + (item.blocked !== undefined ? " blocked" : item.claimed ? "" : " queued")} data-kind="user">
          <div className="who">
            You{item.inputKind === "steer" ? " · steer" : ""}
            {item.plan && <span className="badge plan">plan only</span>}
            {item.blocked !== undefined ? <span className="badge">not sent</span> : !item.claimed && <span className="badge">queued</span>}
          </div>
          {item.images.length > 0 && (
            <div className="user-images">
              {item.images.map((image, i) => (
                <img key={i} src={`data:${image.mediaType};base64,${image.data}`} alt={`Attached image ${i + 1}`} loading="lazy" />
              ))}
            </div>
          )}
          {item.text && <div className="user-text">{item.text}</div>}
          {item.blocked !== undefined && (
            <div className="user-blocked" role="note">
              A hook kept this from the model: {item.blocked}
            </div>
          )}
        </div>
      );
    case "assistant":
      return (
        <div className={"msg assistant" + (item.live ? " live" : "")} data-kind="assistant" data-live={item.live ? "true" : undefined}>
          <div className="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }} />
        </div>
      );
    case "thinking":
      return <Thinking item={item} />;
    case "tool":
      return <ToolCard item={item} />;
    case "notice":
      return <Notice item={item} />;
    case "command":
      return <Command item={item} />;
  }
});
