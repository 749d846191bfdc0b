// The conversation view as a pure function of the durable event history plus
// the live status messages: reduce(state, action) -> state. The page keeps no
// conversation store of its own; reconnecting replays events into it.
import type {
  AssistantEvent,
  ContentBlock,
  ConversationEvent,
  DriverState,
  InputBlockedEvent,
  InputClaimedEvent,
  InputEvent,
  StatusMessage,
  ToolResultEvent,
  TurnEndEvent,
} from "../api/protocol.gen";
import type { ApprovalDecidedEvent, ApprovalRequestedEvent, CommandOutputEvent, GoalSetEvent, HookEvent, PermissionModeEvent } from "../api/protocol.gen";
import type { CompactionEvent, ErrorEvent, ModelChangedEvent, RecoveredEvent, UsageEvent } from "../api/protocol.extra";

export type ToolStatus = "running" | "waiting" | "ok" | "error" | "interrupted" | "skipped";

/** A call's approval request (approval_requested) and, once given, the answer. */
export interface Approval {
  id: string;
  category: string;
  reason: string;
  rule: string;
  suggestedRules: string[];
  decided: { decision: "allow" | "deny"; scope: string; rule: string; message: string } | null;
}

export interface UserItem {
  kind: "user";
  key: string;
  seq: number;
  inputId: string;
  inputKind: string;
  text: string;
  claimed: boolean;
  /** Set when a UserPromptSubmit hook refused it: the hook's reason. */
  blocked?: string;
  /** Attached images as sent (base64). */
  images: { mediaType: string; data: string }[];
  /** A /plan input: the turn that takes it only plans. */
  plan?: boolean;
}

/** A built-in slash command the agent answered itself (command_output). */
export interface CommandItem {
  kind: "command";
  key: string;
  seq: number;
  command: string;
  /** What the person typed. */
  text: string;
  /** The answer, Markdown. */
  output: string;
}

export interface AssistantItem {
  kind: "assistant";
  key: string;
  turnId: string;
  step: number;
  text: string;
  live: boolean;
}

export interface ThinkingItem {
  kind: "thinking";
  key: string;
  turnId: string;
  step: number;
  text: string;
  redacted: boolean;
  live: boolean;
}

export interface ToolItem {
  kind: "tool";
  key: string;
  callId: string;
  turnId: string;
  name: string;
  /** The raw arguments JSON text and its parse (null when not an object). */
  argumentsText: string;
  args: Record<string, unknown> | null;
  status: ToolStatus;
  output: string;
  details: Record<string, unknown> | null;
  approval: Approval | null;
}

export interface NoticeItem {
  kind: "notice";
  key: string;
  seq: number;
  level: "error" | "interrupted" | "info";
  text: string;
}

export type ViewItem = UserItem | AssistantItem | ThinkingItem | ToolItem | NoticeItem | CommandItem;

export interface Totals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

export interface LiveText {
  turnId: string;
  step: number;
  text: string;
  thinking: string;
}

export interface ConversationState {
  conversationId: string;
  lastSeq: number;
  items: ViewItem[];
  /** Streamed text of the step in progress (status stream), until its durable event lands. */
  live: LiveText | null;
  /** Durable kinds this client does not know, kept (not rendered as content). */
  unknown: ConversationEvent[];
  totals: Totals;
  provider: string;
  model: string;
  cwd: string;
  /** The open turn per the log, if any. */
  turnId: string | null;
  /** From the status stream. */
  driverState: DriverState | null;
  activity: string;
  /** The mode a person chose in this conversation (permission_mode), if any. */
  permissionMode: string;
  /** The goal /goal set (goal_set); "" when none. */
  goal: string;
  /** Turns that took a /plan input, and the last turn that ended completed. */
  planTurns: Record<string, true>;
  lastCompletedTurn: string | null;
  /** The seq of the newest input: a plan is answered once input follows it. */
  lastInputSeq: number;
  lastTurnEndSeq: number;
  // Bookkeeping (plain objects so the state stays serialisable).
  callIndex: Record<string, number>;
  inputIndex: Record<string, number>;
  doneSteps: Record<string, true>;
  endedTurns: Record<string, true>;
}

export type Action =
  | { type: "events"; events: ConversationEvent[] }
  | { type: "status"; message: StatusMessage }
  | { type: "reset"; conversationId: string };

const zeroTotals = (): Totals => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });

export function initialState(conversationId: string): ConversationState {
  return {
    conversationId,
    lastSeq: 0,
    items: [],
    live: null,
    unknown: [],
    totals: zeroTotals(),
    provider: "",
    model: "",
    cwd: "",
    turnId: null,
    driverState: null,
    activity: "",
    permissionMode: "",
    goal: "",
    planTurns: {},
    lastCompletedTurn: null,
    lastInputSeq: 0,
    lastTurnEndSeq: 0,
    callIndex: {},
    inputIndex: {},
    doneSteps: {},
    endedTurns: {},
  };
}

export function reduce(state: ConversationState, action: Action): ConversationState {
  switch (action.type) {
    case "reset":
      return initialState(action.conversationId);
    case "events":
      return applyEvents(state, action.events);
    case "status":
      return applyStatus(state, action.message);
  }
}

const stepKey = (turnId: string, step: number) => `${turnId}#${step}`;

/** The text of tool result content blocks (images as placeholders). */
export function contentText(content: ContentBlock[] | undefined): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (block.type === "text" ? (block.text ?? "") : block.type === "image" ? `[image ${block.media_type ?? ""}]` : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Applies durable events in order; events at or below lastSeq are ignored (duplicates). */
export function applyEvents(state: ConversationState, events: ConversationEvent[]): ConversationState {
  if (!events.some((e) => typeof e?.seq === "number" && e.seq > state.lastSeq)) return state;
  // One copy per batch, then mutate the copies (the input state is untouched).
  const s: ConversationState = {
    ...state,
    items: state.items.slice(),
    totals: { ...state.totals },
    callIndex: { ...state.callIndex },
    inputIndex: { ...state.inputIndex },
    doneSteps: { ...state.doneSteps },
    endedTurns: { ...state.endedTurns },
    planTurns: { ...state.planTurns },
  };
  for (const event of events) {
    if (typeof event?.seq !== "number" || event.seq <= s.lastSeq) continue; // seen already
    applyOne(s, event);
    s.lastSeq = event.seq;
  }
  return s;
}

function push(s: ConversationState, item: ViewItem): number {
  s.items.push(item);
  return s.items.length - 1;
}

function applyOne(s: ConversationState, event: ConversationEvent): void {
  switch (event.type) {
    case "session_start": {
      const e = event as ConversationEvent & { provider?: string; model?: string; cwd?: string };
      s.provider = e.provider ?? "";
      s.model = e.model ?? "";
      s.cwd = e.cwd ?? "";
      return;
    }
    case "input": {
      const e = event as InputEvent;
      const index = push(s, {
        kind: "user",
        key: `u${e.seq}`,
        seq: e.seq,
        inputId: e.input_id,
        inputKind: e.kind,
        text: e.text ?? "",
        claimed: false,
        images: Array.isArray(e.attachments)
          ? e.attachments.filter((a) => a.type === "image" && a.data).map((a) => ({ mediaType: a.media_type ?? "image/png", data: a.data ?? "" }))
          : [],
        plan: e.plan === true,
      });
      s.inputIndex[e.input_id] = index;
      s.lastInputSeq = e.seq;
      return;
    }
    case "command_output": {
      const e = event as CommandOutputEvent;
      push(s, { kind: "command", key: `c${e.seq}`, seq: e.seq, command: e.command ?? "", text: e.text ?? "", output: e.output ?? "" });
      return;
    }
    case "goal_set": {
      const e = event as GoalSetEvent;
      s.goal = e.goal ?? "";
      return;
    }
    case "input_claimed": {
      const e = event as InputClaimedEvent;
      for (const id of e.input_ids ?? []) {
        const index = s.inputIndex[id];
        const item = index === undefined ? undefined : s.items[index];
        if (item && item.kind === "user") {
          s.items[index] = { ...item, claimed: true };
          if (item.plan) s.planTurns[e.turn_id] = true;
        }
      }
      return;
    }
    case "input_blocked": {
      const e = event as InputBlockedEvent;
      const index = s.inputIndex[e.input_id];
      const item = index === undefined ? undefined : s.items[index];
      if (item && item.kind === "user") s.items[index] = { ...item, blocked: e.reason || `blocked by a ${e.hook} hook` };
      return;
    }
    case "turn_start":
      s.turnId = (event as { turn_id: string }).turn_id;
      return;
    case "step_start": {
      const e = event as ConversationEvent & { model?: string };
      if (e.model) s.model = e.model;
      return;
    }
    case "assistant": {
      const e = event as AssistantEvent;
      const key = stepKey(e.turn_id, e.step);
      s.doneSteps[key] = true;
      if (s.live && s.live.turnId === e.turn_id && s.live.step <= e.step) s.live = null;
      let text: { start: number; parts: string[] } | null = null;
      const flushText = () => {
        if (text && text.parts.join("").trim() !== "") {
          push(s, { kind: "assistant", key: `a${e.seq}.${text.start}`, turnId: e.turn_id, step: e.step, text: text.parts.join(""), live: false });
        }
        text = null;
      };
      (e.content ?? []).forEach((block, i) => {
        if (block.type === "text") {
          if (!text) text = { start: i, parts: [] };
          text.parts.push(block.text ?? "");
          return;
        }
        flushText();
        if (block.type === "thinking") {
          const redacted = !block.text && !!block.redacted_data;
          if (block.text || redacted) {
            push(s, { kind: "thinking", key: `a${e.seq}.${i}`, turnId: e.turn_id, step: e.step, text: block.text ?? "", redacted, live: false });
          }
        } else if (block.type === "tool_call") {
          const callId = block.id ?? `${e.seq}.${i}`;
          const argumentsText = block.arguments ?? "";
          s.callIndex[callId] = push(s, {
            kind: "tool",
            key: `t${callId}`,
            callId,
            turnId: e.turn_id,
            name: block.name ?? "tool",
            argumentsText,
            args: parseArgs(argumentsText),
            status: "running",
            output: "",
            details: null,
            approval: null,
          });
        }
      });
      flushText();
      return;
    }
    case "tool_result": {
      const e = event as ToolResultEvent;
      const status: ToolStatus = ["ok", "error", "interrupted", "skipped"].includes(e.status) ? e.status : "error";
      const details = e.details && typeof e.details === "object" ? e.details : null;
      const index = s.callIndex[e.call_id];
      const item = index === undefined ? undefined : s.items[index];
      if (item && item.kind === "tool") {
        s.items[index] = { ...item, status, output: contentText(e.content), details };
      } else {
        // A result without its call (e.g. after compaction): show it on its own.
        s.callIndex[e.call_id] = push(s, {
          kind: "tool",
          key: `t${e.call_id}`,
          callId: e.call_id,
          turnId: e.turn_id,
          name: e.tool_name,
          argumentsText: "",
          args: null,
          status,
          output: contentText(e.content),
          details,
          approval: null,
        });
      }
      return;
    }
    case "approval_requested": {
      const e = event as ApprovalRequestedEvent;
      const index = s.callIndex[e.call_id];
      const item = index === undefined ? undefined : s.items[index];
      if (!item || item.kind !== "tool" || item.status !== "running") return;
      const approval: Approval = {
        id: e.approval_id,
        category: e.category ?? "",
        reason: e.reason ?? "",
        rule: e.rule ?? "",
        suggestedRules: Array.isArray(e.suggested_rules) ? e.suggested_rules.filter((r) => typeof r === "string") : [],
        decided: null,
      };
      s.items[index] = { ...item, status: "waiting", approval };
      return;
    }
    case "approval_decided": {
      const e = event as ApprovalDecidedEvent;
      const index = s.callIndex[e.call_id];
      const item = index === undefined ? undefined : s.items[index];
      if (!item || item.kind !== "tool" || !item.approval || item.approval.id !== e.approval_id) return;
      const decided = { decision: e.decision === "allow" ? ("allow" as const) : ("deny" as const), scope: e.scope ?? "once", rule: e.rule ?? "", message: e.message ?? "" };
      s.items[index] = { ...item, status: item.status === "waiting" ? "running" : item.status, approval: { ...item.approval, decided } };
      return;
    }
    case "permission_mode": {
      const e = event as PermissionModeEvent;
      s.permissionMode = e.mode ?? "";
      push(s, { kind: "notice", key: `n${e.seq}`, seq: e.seq, level: "info", text: `Permission mode set to ${e.mode}` });
      return;
    }
    case "hook": {
      const e = event as HookEvent;
      if (e.outcome === "ok") return;
      const why = e.reason ? `: ${e.reason}` : "";
      push(s, { kind: "notice", key: `n${e.seq}`, seq: e.seq, level: e.outcome === "error" || e.outcome === "timeout" ? "error" : "info", text: `Hook ${e.hook} (${e.command}) ${e.outcome}${why}` });
      return;
    }
    case "usage": {
      const u = (event as UsageEvent).usage;
      if (u && typeof u === "object") {
        s.totals.inputTokens += u.input_tokens ?? 0;
        s.totals.outputTokens += u.output_tokens ?? 0;
        s.totals.cacheReadTokens += u.cache_read_tokens ?? 0;
        s.totals.cacheWriteTokens += u.cache_write_tokens ?? 0;
        s.totals.reasoningTokens += u.reasoning_tokens ?? 0;
      }
      return;
    }
    case "step_end":
      return;
    case "turn_end": {
      const e = event as TurnEndEvent;
      s.endedTurns[e.turn_id] = true;
      s.lastTurnEndSeq = e.seq;
      s.lastCompletedTurn = e.reason === "completed" ? e.turn_id : null;
      if (s.turnId === e.turn_id) s.turnId = null;
      if (s.live && s.live.turnId === e.turn_id) s.live = null;
      // Any call of this turn still open did not finish.
      for (const index of Object.values(s.callIndex)) {
        const item = s.items[index];
        if (item && item.kind === "tool" && item.turnId === e.turn_id && (item.status === "running" || item.status === "waiting")) {
          s.items[index] = { ...item, status: "interrupted" };
        }
      }
      if (e.reason && e.reason !== "completed") {
        const level = e.reason === "error" ? "error" : e.reason === "max_steps" ? "info" : "interrupted";
        const label =
          e.reason === "aborted" ? "Turn aborted" : e.reason === "interrupted" ? "Turn interrupted" : e.reason === "max_steps" ? "Turn stopped at the step limit" : e.reason === "error" ? "Turn failed" : `Turn ended (${e.reason})`;
        push(s, { kind: "notice", key: `n${e.seq}`, seq: e.seq, level, text: e.message ? `${label}: ${e.message}` : label });
      }
      return;
    }
    case "paused":
      push(s, { kind: "notice", key: `n${event.seq}`, seq: event.seq, level: "info", text: "Paused" });
      return;
    case "resumed":
      push(s, { kind: "notice", key: `n${event.seq}`, seq: event.seq, level: "info", text: "Resumed" });
      return;
    case "model_changed": {
      const e = event as unknown as ModelChangedEvent;
      s.provider = e.provider ?? s.provider;
      s.model = e.model ?? s.model;
      push(s, { kind: "notice", key: `n${e.seq}`, seq: e.seq, level: "info", text: `Model changed to ${e.provider}/${e.model}` });
      return;
    }
    case "compaction": {
      const e = event as unknown as CompactionEvent;
      const before = e.tokens_before ? ` (${e.tokens_before.toLocaleString("en-US")} tokens before)` : "";
      push(s, { kind: "notice", key: `n${e.seq}`, seq: e.seq, level: "info", text: `Context compacted${before}` });
      return;
    }
    case "recovered": {
      const e = event as unknown as RecoveredEvent;
      const notes = Array.isArray(e.notes) && e.notes.length ? `: ${e.notes.join("; ")}` : "";
      push(s, { kind: "notice", key: `n${e.seq}`, seq: e.seq, level: "interrupted", text: `Recovered after a crash${notes}` });
      return;
    }
    case "error": {
      const e = event as unknown as ErrorEvent;
      push(s, { kind: "notice", key: `n${e.seq}`, seq: e.seq, level: "error", text: e.code ? `Error (${e.code}): ${e.message}` : `Error: ${e.message}` });
      return;
    }
    default:
      s.unknown = [...s.unknown, event];
  }
}

/** Applies a status stream message (only those for this conversation). */
export function applyStatus(state: ConversationState, message: StatusMessage): ConversationState {
  if (message.type === "snapshot") {
    const mine = message.conversations.find((c) => c.conversationId === state.conversationId);
    if (!mine) return state.driverState === null ? state : { ...state, driverState: "idle", activity: "" };
    return { ...state, driverState: mine.state, activity: mine.activity ?? "" };
  }
  if (!("conversationId" in message) || message.conversationId !== state.conversationId) return state;
  switch (message.type) {
    case "state":
      return {
        ...state,
        driverState: message.state,
        activity: message.state === "running" || message.state === "pausing" ? state.activity : "",
      };
    case "tool":
      return { ...state, activity: message.finished ? "" : message.label || `Running ${message.toolName}` };
    case "delta":
    case "thinking": {
      const key = stepKey(message.turnId, message.step);
      // Late: the durable event of this step already landed, or its turn ended.
      if (state.doneSteps[key] || state.endedTurns[message.turnId]) return state;
      const live = state.live;
      let next: LiveText;
      if (live && live.turnId === message.turnId) {
        if (message.step < live.step) return state; // out of order: an older step
        next = message.step === live.step ? { ...live } : { turnId: message.turnId, step: message.step, text: "", thinking: "" };
      } else {
        next = { turnId: message.turnId, step: message.step, text: "", thinking: "" };
      }
      if (message.type === "delta") next.text += message.text;
      else next.thinking += message.text;
      return { ...state, live: next };
    }
    default:
      return state;
  }
}

/**
 * The plan a /plan turn answered with, while it waits for the person: the
 * last turn was a plan turn that completed and no input came after it.
 */
export function planAwaitingApproval(state: ConversationState): AssistantItem | null {
  const turn = state.lastCompletedTurn;
  if (!turn || !state.planTurns[turn] || state.turnId || state.lastInputSeq > state.lastTurnEndSeq) return null;
  for (let i = state.items.length - 1; i >= 0; i--) {
    const item = state.items[i];
    if (item.kind === "assistant" && item.turnId === turn) return item;
  }
  return null;
}

/** Calls waiting for a person, oldest first. */
export function pendingApprovals(state: ConversationState): ToolItem[] {
  return state.items.filter((item): item is ToolItem => item.kind === "tool" && item.status === "waiting" && !!item.approval && !item.approval.decided);
}

/** The items to render: durable items, then the live step's text. */
export function viewItems(state: ConversationState): ViewItem[] {
  const live = state.live;
  if (!live || (!live.text && !live.thinking)) return state.items;
  const extra: ViewItem[] = [];
  if (live.thinking) extra.push({ kind: "thinking", key: "live-thinking", turnId: live.turnId, step: live.step, text: live.thinking, redacted: false, live: true });
  if (live.text) extra.push({ kind: "assistant", key: "live-text", turnId: live.turnId, step: live.step, text: live.text, live: true });
  return state.items.concat(extra);
}
