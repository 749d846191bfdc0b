// Synthetic conversations for tests and the render benchmark: realistic turns
// (input, bash call, result, markdown answer, usage) with consecutive seqs.
import type { ConversationEvent } from "../api/protocol.gen";

export function syntheticEvents(count: number): ConversationEvent[] {
  const events: ConversationEvent[] = [];
  let seq = 0;
  const push = (e: Record<string, unknown>) => {
    seq += 1;
    events.push({ seq, ts: 1764690000000 + seq * 10, ...e } as unknown as ConversationEvent);
  };
  push({ type: "session_start", session_id: "s", provider: "anthropic", model: "claude-sonnet-4-5", cwd: "/tmp/p", version: "0.1.0" });
  let turn = 0;
  while (seq < count) {
    turn += 1;
    const t = `turn-${turn}`;
    const input = `in-${turn}`;
    push({ type: "input", input_id: input, kind: "followup", text: `Please run step ${turn} and explain` });
    push({ type: "turn_start", turn_id: t });
    push({ type: "input_claimed", input_ids: [input], turn_id: t, step: 1 });
    push({ type: "step_start", turn_id: t, step: 1, model: "claude-sonnet-4-5" });
    push({ type: "assistant", turn_id: t, step: 1, content: [{ type: "thinking", text: "Let me look." }, { type: "text", text: "Running it." }, { type: "tool_call", id: `call-${turn}`, name: "bash", arguments: JSON.stringify({ command: `make step-${turn}` }) }] });
    push({ type: "usage", turn_id: t, step: 1, model: "claude-sonnet-4-5", usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } });
    push({ type: "tool_result", turn_id: t, step: 1, call_id: `call-${turn}`, tool_name: "bash", status: turn % 7 === 0 ? "error" : "ok", content: [{ type: "text", text: `line 1\nline 2\n[exit code ${turn % 7 === 0 ? 2 : 0}]` }], details: { exit_code: turn % 7 === 0 ? 2 : 0, signal: null, timed_out: false, cancelled: false, duration_ms: 12, output_bytes: 14, omitted_bytes: 0 } });
    push({ type: "step_end", turn_id: t, step: 1, reason: "completed", stop_reason: "tool_use" });
    push({ type: "step_start", turn_id: t, step: 2, model: "claude-sonnet-4-5" });
    push({ type: "assistant", turn_id: t, step: 2, content: [{ type: "text", text: `Step **${turn}** done.\n\n\`\`\`cpp\nint main() { return ${turn}; }\n\`\`\`\n\n- one\n- two` }] });
    push({ type: "usage", turn_id: t, step: 2, model: "claude-sonnet-4-5", usage: { input_tokens: 120, output_tokens: 40 } });
    push({ type: "step_end", turn_id: t, step: 2, reason: "completed", stop_reason: "end_turn" });
    push({ type: "turn_end", turn_id: t, reason: "completed" });
  }
  return events.slice(0, count);
}
