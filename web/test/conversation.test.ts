import { describe, expect, it } from "vitest";
import type { ConversationEvent, StatusMessage } from "../src/api/protocol.gen";
import { applyEvents, applyStatus, initialState, planAwaitingApproval, reduce, viewItems, type ConversationState, type ToolItem } from "../src/model/conversation";
import { syntheticEvents } from "../src/model/synthetic";

const CONV = "conv-1";
const T = "turn-1";

// Event JSON as the server sends it (field names copied from a real `ava --serve` log).
const real: ConversationEvent[] = [
  { cwd: "/tmp/p", model: "claude-sonnet-4-6", provider: "anthropic", seq: 1, session_id: CONV, ts: 1, type: "session_start", version: "0.1.0" },
  { input_id: "in-1", kind: "followup", seq: 2, text: "bash: echo hello", ts: 2, type: "input" },
  { seq: 3, ts: 3, turn_id: T, type: "turn_start" },
  { input_ids: ["in-1"], seq: 4, step: 1, ts: 4, turn_id: T, type: "input_claimed" },
  { model: "claude-sonnet-4-6", seq: 5, step: 1, ts: 5, turn_id: T, type: "step_start" },
  { content: [{ arguments: '{"command":"echo hello"}', id: "call_1", name: "bash", type: "tool_call" }], seq: 6, step: 1, ts: 6, turn_id: T, type: "assistant" },
  { model: "claude-sonnet-4-6", seq: 7, step: 1, ts: 7, turn_id: T, type: "usage", usage: { cache_read_tokens: 0, cache_write_tokens: 0, input_tokens: 10, output_tokens: 5, reasoning_tokens: 0 } },
  { call_id: "call_1", content: [{ text: "hello\n[exit code 0]", type: "text" }], details: { cancelled: false, duration_ms: 16, exit_code: 0, omitted_bytes: 0, output_bytes: 6, signal: null, timed_out: false }, seq: 8, status: "ok", step: 1, tool_name: "bash", ts: 8, turn_id: T, type: "tool_result" },
  { reason: "completed", seq: 9, step: 1, stop_reason: "tool_use", ts: 9, turn_id: T, type: "step_end" },
  { model: "claude-sonnet-4-6", seq: 10, step: 2, ts: 10, turn_id: T, type: "step_start" },
  { content: [{ text: "done: ", type: "text" }, { text: "hello", type: "text" }], seq: 11, step: 2, ts: 11, turn_id: T, type: "assistant" },
  { model: "claude-sonnet-4-6", seq: 12, step: 2, ts: 12, turn_id: T, type: "usage", usage: { cache_read_tokens: 0, cache_write_tokens: 0, input_tokens: 10, output_tokens: 5, reasoning_tokens: 0 } },
  { reason: "completed", seq: 13, step: 2, stop_reason: "end_turn", ts: 13, turn_id: T, type: "step_end" },
  { reason: "completed", seq: 14, ts: 14, turn_id: T, type: "turn_end" },
] as ConversationEvent[];

const run = (events: ConversationEvent[], state: ConversationState = initialState(CONV)) => reduce(state, { type: "events", events });
const status = (state: ConversationState, message: Record<string, unknown>) => reduce(state, { type: "status", message: message as unknown as StatusMessage });
const delta = (turnId: string, step: number, text: string, type = "delta") => ({ type, conversationId: CONV, turnId, step, text });
const summary = (s: ConversationState) => viewItems(s).map((i) => `${i.kind}:${i.kind === "tool" ? `${i.name}/${i.status}` : "text" in i ? i.text : ""}`);

describe("durable events", () => {
  it("builds user, tool and assistant items from a real turn", () => {
    const s = run(real);
    expect(summary(s)).toEqual(["user:bash: echo hello", "tool:bash/ok", "assistant:done: hello"]);
    const tool = s.items[1] as ToolItem;
    expect(tool.args).toEqual({ command: "echo hello" });
    expect(tool.details?.exit_code).toBe(0);
    expect(tool.output).toBe("hello\n[exit code 0]");
    expect(s.items[0]).toMatchObject({ kind: "user", claimed: true });
    expect(s.totals).toMatchObject({ inputTokens: 20, outputTokens: 10 });
    expect(s.lastSeq).toBe(14);
    expect(s.turnId).toBeNull();
    expect(s.model).toBe("claude-sonnet-4-6");
  });

  it("keeps unknown kinds harmlessly", () => {
    const events = [
      ...real.slice(0, 3),
      { type: "hologram", seq: 4, ts: 4, shape: { sides: 12 } } as unknown as ConversationEvent,
      ...real.slice(3).map((e) => ({ ...e, seq: e.seq + 1 })),
    ];
    const s = run(events);
    expect(summary(s)).toEqual(["user:bash: echo hello", "tool:bash/ok", "assistant:done: hello"]);
    expect(s.unknown).toHaveLength(1);
    expect(s.unknown[0].type).toBe("hologram");
    expect(s.lastSeq).toBe(15);
  });

  it("ignores duplicate events", () => {
    const once = run(real);
    const twice = run(real, once);
    expect(twice).toBe(once);
    const overlapping = run([...real.slice(0, 8), ...real.slice(4, 10), ...real.slice(2)]);
    expect(overlapping.items).toEqual(once.items);
    expect(overlapping.totals).toEqual(once.totals);
  });

  it("replay after a reconnect gives the same view", () => {
    const whole = run(real);
    // Cut at every point; the follower resumes with ?after=<lastSeq> and the
    // server may resend what was in flight: the view must not change.
    for (let cut = 1; cut < real.length; cut++) {
      const first = run(real.slice(0, cut));
      const resumed = run(real.slice(Math.max(0, cut - 3)), first); // overlap
      expect(resumed.items).toEqual(whole.items);
      expect(resumed.lastSeq).toBe(whole.lastSeq);
      expect(resumed.totals).toEqual(whole.totals);
    }
    // One event at a time equals one batch.
    const single = real.reduce((s, e) => run([e], s), initialState(CONV));
    expect(single.items).toEqual(whole.items);
  });

  it("does not mutate the previous state", () => {
    const before = run(real.slice(0, 6));
    const frozen = JSON.stringify(before);
    run(real.slice(6), before);
    expect(JSON.stringify(before)).toBe(frozen);
  });

  it("shows aborts, interrupted and skipped calls, errors", () => {
    const events = [
      ...real.slice(0, 5),
      { type: "assistant", seq: 6, ts: 6, turn_id: T, step: 1, content: [{ type: "thinking", text: "hmm" }, { type: "tool_call", id: "a", name: "bash", arguments: '{"command":"sleep 30"}' }, { type: "tool_call", id: "b", name: "read", arguments: '{"path":"x"}' }, { type: "tool_call", id: "c", name: "write", arguments: '{"path":"y","content":"zz"}' }] },
      { type: "tool_result", seq: 7, ts: 7, turn_id: T, step: 1, call_id: "a", tool_name: "bash", status: "interrupted", content: [{ type: "text", text: "(no output)" }], details: { exit_code: null, signal: 15, cancelled: true } },
      { type: "tool_result", seq: 8, ts: 8, turn_id: T, step: 1, call_id: "b", tool_name: "read", status: "skipped", content: [{ type: "text", text: "skipped" }] },
      { type: "error", seq: 9, ts: 9, turn_id: T, code: "provider_error", message: "overloaded" },
      { type: "turn_end", seq: 10, ts: 10, turn_id: T, reason: "aborted", message: "aborted by the user" },
    ] as ConversationEvent[];
    const s = run(events);
    expect(summary(s)).toEqual([
      "user:bash: echo hello",
      "thinking:hmm",
      "tool:bash/interrupted",
      "tool:read/skipped",
      "tool:write/interrupted", // never paired in this log: closed by its turn's end
      "notice:Error (provider_error): overloaded",
      "notice:Turn aborted: aborted by the user",
    ]);
    expect(s.items.filter((i) => i.kind === "notice").map((i) => (i as { level: string }).level)).toEqual(["error", "interrupted"]);
  });

  it("handles paused, resumed, model_changed, compaction, recovered", () => {
    const s = run([
      { type: "paused", seq: 1, ts: 1 },
      { type: "resumed", seq: 2, ts: 2 },
      { type: "model_changed", seq: 3, ts: 3, provider: "openai", model: "gpt-5" },
      { type: "compaction", seq: 4, ts: 4, summary: "…", first_kept_seq: 2, tokens_before: 150000 },
      { type: "recovered", seq: 5, ts: 5, dropped_bytes: 12, notes: ["closed an open turn"] },
    ] as ConversationEvent[]);
    expect(summary(s)).toEqual([
      "notice:Paused",
      "notice:Resumed",
      "notice:Model changed to openai/gpt-5",
      "notice:Context compacted (150,000 tokens before)",
      "notice:Recovered after a crash: closed an open turn",
    ]);
    expect(s.provider).toBe("openai");
  });

  it("keeps attached images of user input, and non-image blocks out", () => {
    const s = run([
      real[0],
      {
        input_id: "in-img",
        kind: "followup",
        seq: 2,
        text: "",
        ts: 2,
        type: "input",
        attachments: [
          { type: "image", media_type: "image/png", data: "iVBORw0KGgo=" },
          { type: "text", text: "not an image" },
        ],
      } as ConversationEvent,
    ]);
    expect(s.items[0]).toMatchObject({ kind: "user", text: "", images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }] });
  });

  it("marks queued input until claimed", () => {
    const s = run([...real.slice(0, 2), { type: "input", seq: 3, ts: 3, input_id: "in-2", kind: "steer", text: "faster" } as ConversationEvent]);
    expect(s.items.map((i) => (i.kind === "user" ? `${i.inputKind}:${i.claimed}` : ""))).toEqual(["followup:false", "steer:false"]);
  });

  it("marks input a UserPromptSubmit hook blocked, with its reason", () => {
    const s = run([
      ...real.slice(0, 2),
      { type: "input_blocked", seq: 3, ts: 3, input_id: "in-1", hook: "UserPromptSubmit", reason: "no secrets" } as ConversationEvent,
      { type: "input_blocked", seq: 4, ts: 4, input_id: "unknown", hook: "UserPromptSubmit" } as ConversationEvent,
    ]);
    expect(s.items).toHaveLength(1);
    expect(s.items[0]).toMatchObject({ kind: "user", claimed: false, blocked: "no secrets" });
  });
});

describe("live status messages", () => {
  const upToStep2 = run(real.slice(0, 10)); // step 2 started, no assistant yet

  it("streams deltas and replaces them with the durable event", () => {
    let s = status(upToStep2, delta(T, 2, "done:"));
    s = status(s, delta(T, 2, " hel"));
    expect(viewItems(s).at(-1)).toMatchObject({ kind: "assistant", live: true, text: "done: hel" });
    s = run(real.slice(10), s);
    expect(s.live).toBeNull();
    expect(summary(s)).toEqual(["user:bash: echo hello", "tool:bash/ok", "assistant:done: hello"]);
  });

  it("ignores deltas after the durable event, for ended turns and for older steps", () => {
    const done = run(real.slice(10), upToStep2);
    expect(status(done, delta(T, 2, "late"))).toBe(done);
    expect(status(done, delta(T, 1, "older"))).toBe(done);
    // An older step arriving after a newer one started streaming.
    const streaming = status(run(real.slice(0, 10)), delta(T, 2, "new"));
    expect(status(streaming, delta(T, 1, "old"))).toBe(streaming);
    // The step's durable event already landed before its delta (out of order across streams).
    const s = run(real.slice(10, 11), upToStep2);
    expect(status(s, delta(T, 2, "done: hello")).live).toBeNull();
  });

  it("ignores other conversations and keeps thinking apart", () => {
    expect(status(upToStep2, { ...delta(T, 2, "x"), conversationId: "other" })).toBe(upToStep2);
    const s = status(status(upToStep2, delta(T, 2, "pondering", "thinking")), delta(T, 2, "answer"));
    expect(viewItems(s).slice(-2).map((i) => i.kind)).toEqual(["thinking", "assistant"]);
  });

  it("tracks driver state and activity from tool messages", () => {
    let s = status(upToStep2, { type: "state", conversationId: CONV, state: "running" });
    s = status(s, { type: "tool", conversationId: CONV, turnId: T, callId: "c", toolName: "bash", label: "Running bash: make", finished: false });
    expect(s.activity).toBe("Running bash: make");
    s = status(s, { type: "tool", conversationId: CONV, turnId: T, callId: "c", toolName: "bash", label: "Running bash: make", finished: true });
    expect(s.activity).toBe("");
    s = status(s, { type: "snapshot", conversations: [{ conversationId: CONV, state: "paused", activity: "" }] });
    expect(s.driverState).toBe("paused");
  });

  it("the same events with deltas interleaved anywhere give the same final view", () => {
    const plain = run(real);
    let s = initialState(CONV);
    for (const e of real) {
      s = status(s, delta(T, 2, "noise "));
      s = applyEvents(s, [e]);
      s = applyStatus(s, delta(T, 1, "older ") as unknown as StatusMessage);
    }
    expect(viewItems(s)).toEqual(viewItems(plain));
  });
});

describe("scale", () => {
  it("reduces 5,000 events quickly and consistently", () => {
    const events = syntheticEvents(5000);
    const started = performance.now();
    const s = run(events);
    const ms = performance.now() - started;
    expect(s.lastSeq).toBe(5000);
    expect(new Set(s.items.map((i) => i.key)).size).toBe(s.items.length);
    expect(ms).toBeLessThan(1000);
    // Replaying in 50-event chunks with overlap gives the same view.
    let chunked = initialState(CONV);
    for (let i = 0; i < events.length; i += 50) chunked = run(events.slice(Math.max(0, i - 10), i + 50), chunked);
    expect(chunked.items).toEqual(s.items);
  });
});

describe("workflows", () => {
  const start = real[0];
  const planTurn = (seq: number, turn: string, text: string, plan: boolean) =>
    [
      { input_id: `in-${seq}`, kind: "followup", seq, text, ts: seq, type: "input", ...(plan ? { plan: true, command: "plan", expansion: "x" } : {}) },
      { seq: seq + 1, ts: seq, turn_id: turn, type: "turn_start" },
      { input_ids: [`in-${seq}`], seq: seq + 2, step: 1, ts: seq, turn_id: turn, type: "input_claimed" },
      { content: [{ text: `answer ${turn}`, type: "text" }], seq: seq + 3, step: 1, ts: seq, turn_id: turn, type: "assistant" },
      { reason: "completed", seq: seq + 4, ts: seq, turn_id: turn, type: "turn_end" },
    ] as ConversationEvent[];

  it("shows a built-in's answer as a command item and follows the goal", () => {
    const s = run([
      start,
      { type: "goal_set", goal: "ship it", seq: 2, ts: 2 },
      { type: "command_output", input_id: "i", text: "/goal ship it", command: "goal", output: "Goal set: ship it", seq: 3, ts: 3 },
    ] as ConversationEvent[]);
    expect(s.goal).toBe("ship it");
    expect(s.items).toEqual([{ kind: "command", key: "c3", seq: 3, command: "goal", text: "/goal ship it", output: "Goal set: ship it" }]);
    const cleared = run([{ type: "goal_set", goal: "", seq: 4, ts: 4 } as ConversationEvent], s);
    expect(cleared.goal).toBe("");
  });

  it("offers a completed plan turn for approval until input follows it", () => {
    const planned = run([start, ...planTurn(2, "t1", "/plan tidy", true)]);
    expect(planned.items[0]).toMatchObject({ kind: "user", plan: true });
    expect(planAwaitingApproval(planned)).toMatchObject({ kind: "assistant", text: "answer t1" });
    // Input after it (approved, or more planning) answers it.
    const answered = run([{ input_id: "in-9", kind: "followup", seq: 7, text: "go", ts: 7, type: "input" } as ConversationEvent], planned);
    expect(planAwaitingApproval(answered)).toBeNull();
    // A plain turn is never a plan to approve; neither is an aborted plan turn.
    expect(planAwaitingApproval(run([start, ...planTurn(2, "t1", "hello", false)]))).toBeNull();
    const aborted = [...planTurn(2, "t1", "/plan x", true)];
    (aborted[4] as { reason: string }).reason = "aborted";
    expect(planAwaitingApproval(run([start, ...aborted]))).toBeNull();
  });
});
