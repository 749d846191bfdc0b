#include <set>

#include <fmt/format.h>

#include "ava/session/log_writer.hpp"

namespace ava::session {

namespace {

struct OpenCall {
  std::string call_id;
  std::string name;
  std::string turn_id;
  int step = 0;
};

// Lifecycle state at the end of a log: what is open and what is unanswered.
struct OpenState {
  std::string turn_id;  // empty if no turn is open
  std::optional<int> step;
  std::vector<OpenCall> calls;  // tool calls without a result, in call order
  bool paused = false;          // a pause is in force (paused, not resumed)
  // Calls with an approval requested and not decided / decided deny.
  std::set<std::string> awaiting_approval;
  std::set<std::string> denied;
};

OpenState open_state(const std::vector<Event>& events) {
  OpenState state;
  for (const auto& event : events) {
    if (const auto* turn = std::get_if<TurnStarted>(&event.body)) {
      state.turn_id = turn->turn_id;
      state.step.reset();
    } else if (std::holds_alternative<TurnEnded>(event.body)) {
      state.turn_id.clear();
      state.step.reset();
    } else if (const auto* step = std::get_if<StepStarted>(&event.body)) {
      state.step = step->step;
    } else if (std::holds_alternative<StepEnded>(event.body)) {
      state.step.reset();
    } else if (const auto* message = std::get_if<AssistantMessage>(&event.body)) {
      for (const auto& block : message->content) {
        if (const auto* call = std::get_if<content::ToolCallBlock>(&block)) {
          state.calls.push_back({call->id, call->name, message->turn_id, message->step});
        }
      }
    } else if (const auto* result = std::get_if<ToolResult>(&event.body)) {
      std::erase_if(state.calls,
                    [&](const OpenCall& call) { return call.call_id == result->call_id; });
      state.awaiting_approval.erase(result->call_id);
    } else if (const auto* asked = std::get_if<ApprovalRequested>(&event.body)) {
      state.awaiting_approval.insert(asked->call_id);
    } else if (const auto* decided = std::get_if<ApprovalDecided>(&event.body)) {
      state.awaiting_approval.erase(decided->call_id);
      if (decided->decision == ApprovalDecision::deny) state.denied.insert(decided->call_id);
    } else if (std::holds_alternative<Paused>(event.body)) {
      state.paused = true;
    } else if (std::holds_alternative<Resumed>(event.body)) {
      state.paused = false;
    }
  }
  return state;
}

}  // namespace

std::vector<EventBody> plan_closers(const std::vector<Event>& events,
                                    std::vector<std::string>& notes) {
  const OpenState state = open_state(events);
  std::vector<EventBody> closers;
  // A step whose next call waits for a person is not broken: that call has
  // not run, so the step stays open and the driver waits again on reopen.
  if (!state.turn_id.empty() && state.step && !state.calls.empty() &&
      state.awaiting_approval.contains(state.calls.front().call_id)) {
    // (No note either: a note would record a "recovery" on every reopen.)
    return {};
  }
  std::string previous_step_key;
  for (const auto& call : state.calls) {
    // Tools run one at a time in the model's order, so within a step only the
    // first unanswered call can have been running; the rest never started.
    const std::string step_key = fmt::format("{}/{}", call.turn_id, call.step);
    const bool first_of_step = step_key != previous_step_key;
    previous_step_key = step_key;
    // A call a person denied never started, even as the first one.
    const bool ran = first_of_step && !state.denied.contains(call.call_id);
    const ToolStatus status = ran ? ToolStatus::interrupted : ToolStatus::skipped;
    const char* text = ran ? "Interrupted: Ava stopped before this tool call finished; its "
                             "effects, if any, are unknown."
                           : "Skipped: Ava stopped before this tool call started.";
    closers.emplace_back(ToolResult{.turn_id = call.turn_id,
                                    .step = call.step,
                                    .call_id = call.call_id,
                                    .tool_name = call.name,
                                    .status = status,
                                    .content = {content::TextBlock{text}}});
    notes.push_back(
        fmt::format("{} tool call {} ({})", to_string(status), call.call_id, call.name));
  }
  if (!state.turn_id.empty() && state.step) {
    closers.emplace_back(
        StepEnded{.turn_id = state.turn_id, .step = *state.step, .reason = EndReason::interrupted});
    notes.push_back(fmt::format("closed step {} of turn {}", *state.step, state.turn_id));
  }
  // A turn paused at a complete step boundary is not broken: it stays open
  // and continues when the session is resumed.
  const bool paused_at_boundary = state.paused && !state.step && state.calls.empty();
  if (!state.turn_id.empty() && !paused_at_boundary) {
    closers.emplace_back(TurnEnded{.turn_id = state.turn_id,
                                   .reason = EndReason::interrupted,
                                   .message = "the process stopped during this turn"});
    notes.push_back(fmt::format("closed turn {}", state.turn_id));
  }
  return closers;
}

}  // namespace ava::session
