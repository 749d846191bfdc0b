#include "ava/session/inspect.hpp"

#include <ranges>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "ava/session/codec.hpp"

namespace ava::session {

namespace {

TurnSummary* find_turn(std::vector<TurnSummary>& turns, const std::string& id) {
  for (auto& turn : std::views::reverse(turns)) {
    if (turn.turn_id == id) return &turn;
  }
  return nullptr;
}

}  // namespace

InspectReport inspect_scan(const std::filesystem::path& path, const LogScan& scan) {
  InspectReport report{.path = path,
                       .file_bytes = scan.file_bytes,
                       .valid_bytes = scan.valid_bytes,
                       .events = scan.events.size(),
                       .torn_tail = scan.torn_tail};
  for (const auto& event : scan.events) {
    ++report.counts[std::string(type_name(event.body))];
    if (const auto* turn = std::get_if<TurnStarted>(&event.body)) {
      report.turns.push_back({.turn_id = turn->turn_id, .outcome = "open"});
    } else if (const auto* end = std::get_if<TurnEnded>(&event.body)) {
      if (auto* summary = find_turn(report.turns, end->turn_id)) {
        summary->outcome = std::string(to_string(end->reason));
      }
    } else if (const auto* step = std::get_if<StepStarted>(&event.body)) {
      if (auto* summary = find_turn(report.turns, step->turn_id)) ++summary->steps;
    } else if (const auto* message = std::get_if<AssistantMessage>(&event.body)) {
      for (const auto& block : message->content) {
        if (const auto* call = std::get_if<content::ToolCallBlock>(&block)) {
          report.tool_calls.push_back(
              {.call_id = call->id, .name = call->name, .status = "unpaired"});
          if (auto* summary = find_turn(report.turns, message->turn_id)) ++summary->tool_calls;
        }
      }
    } else if (const auto* result = std::get_if<ToolResult>(&event.body)) {
      for (auto& call : report.tool_calls) {
        if (call.call_id == result->call_id) call.status = std::string(to_string(result->status));
      }
      for (auto& approval : report.approvals) {
        if (approval.call_id == result->call_id && approval.decision == "pending") {
          approval.decision = "moot";
        }
      }
    } else if (const auto* asked = std::get_if<ApprovalRequested>(&event.body)) {
      report.approvals.push_back({.approval_id = asked->approval_id,
                                  .call_id = asked->call_id,
                                  .tool_name = asked->tool_name,
                                  .reason = asked->reason,
                                  .decision = "pending"});
    } else if (const auto* decided = std::get_if<ApprovalDecided>(&event.body)) {
      for (auto& approval : report.approvals) {
        if (approval.approval_id != decided->approval_id) continue;
        approval.decision = std::string(to_string(decided->decision));
        approval.scope = std::string(to_string(decided->scope));
        approval.message = decided->message;
      }
    } else if (const auto* hook = std::get_if<HookRan>(&event.body)) {
      report.hooks.push_back({.hook = hook->hook,
                              .command = hook->command,
                              .call_id = hook->call_id,
                              .outcome = hook->outcome,
                              .duration_ms = hook->duration_ms,
                              .reason = hook->reason});
    } else if (std::holds_alternative<Recovered>(event.body)) {
      ++report.recoveries;
    }
  }
  Context context = rebuild_context(scan.events);
  report.session_id = context.session_id;
  report.model = context.model;
  report.unpaired_calls = std::move(context.unpaired_calls);
  report.pending = std::move(context.pending);
  report.permission_mode = context.permission_mode;
  report.goal = context.goal;
  report.usage = context.usage;
  return report;
}

Result<InspectReport> inspect_log(const std::filesystem::path& path) {
  AVA_TRY(auto scan, read_log(path));
  return inspect_scan(path, scan);
}

nlohmann::json to_json(const InspectReport& r) {
  nlohmann::json turns = nlohmann::json::array();
  for (const auto& t : r.turns) {
    turns.push_back({{"turnId", t.turn_id},
                     {"outcome", t.outcome},
                     {"steps", t.steps},
                     {"toolCalls", t.tool_calls}});
  }
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : r.tool_calls) {
    calls.push_back({{"callId", c.call_id}, {"name", c.name}, {"status", c.status}});
  }
  nlohmann::json pending = nlohmann::json::array();
  for (const auto& p : r.pending) {
    pending.push_back(
        {{"inputId", p.input_id}, {"kind", to_string(p.kind)}, {"text", p.text}, {"seq", p.seq}});
  }
  nlohmann::json approvals = nlohmann::json::array();
  for (const auto& a : r.approvals) {
    approvals.push_back({{"approvalId", a.approval_id},
                         {"callId", a.call_id},
                         {"toolName", a.tool_name},
                         {"reason", a.reason},
                         {"decision", a.decision},
                         {"scope", a.scope},
                         {"message", a.message}});
  }
  nlohmann::json hooks = nlohmann::json::array();
  for (const auto& h : r.hooks) {
    hooks.push_back({{"hook", h.hook},
                     {"command", h.command},
                     {"callId", h.call_id},
                     {"outcome", h.outcome},
                     {"durationMs", h.duration_ms},
                     {"reason", h.reason}});
  }
  nlohmann::json torn = nullptr;
  if (r.torn_tail) {
    torn = {{"offset", r.torn_tail->offset},
            {"bytes", r.torn_tail->bytes},
            {"reason", r.torn_tail->reason}};
  }
  return {{"path", r.path.string()},
          {"sessionId", r.session_id},
          {"model", r.model},
          {"fileBytes", r.file_bytes},
          {"validBytes", r.valid_bytes},
          {"events", r.events},
          {"counts", r.counts},
          {"turns", turns},
          {"toolCalls", calls},
          {"unpairedCalls", r.unpaired_calls},
          {"pendingInput", pending},
          {"approvals", approvals},
          {"hooks", hooks},
          {"permissionMode", r.permission_mode},
          {"goal", r.goal},
          {"usage",
           {{"inputTokens", r.usage.input_tokens},
            {"outputTokens", r.usage.output_tokens},
            {"cacheReadTokens", r.usage.cache_read_tokens},
            {"cacheWriteTokens", r.usage.cache_write_tokens},
            {"reasoningTokens", r.usage.reasoning_tokens}}},
          {"recoveries", r.recoveries},
          {"tornTail", torn}};
}

std::string to_text(const InspectReport& r) {
  std::string out;
  auto line = [&out](const std::string& text) {
    out += text;
    out += '\n';
  };
  line(fmt::format("session  {}  model {}", r.session_id.empty() ? "?" : r.session_id,
                   r.model.empty() ? "?" : r.model));
  line(fmt::format("file     {} ({} bytes, {} events)", r.path.string(), r.file_bytes, r.events));
  if (r.torn_tail) {
    line(fmt::format("torn     {} bytes at offset {}: {} (opening the log for writing repairs it)",
                     r.torn_tail->bytes, r.torn_tail->offset, r.torn_tail->reason));
  }
  std::string counts;
  for (const auto& [type, count] : r.counts) counts += fmt::format(" {}={}", type, count);
  line("events  " + counts);
  line(fmt::format("turns    {}", r.turns.size()));
  for (const auto& t : r.turns) {
    line(fmt::format("  {}  {}  steps={} tool_calls={}", t.turn_id, t.outcome, t.steps,
                     t.tool_calls));
  }
  std::map<std::string, int> statuses;
  for (const auto& c : r.tool_calls) ++statuses[c.status];
  std::string status_text;
  for (const auto& [status, count] : statuses) status_text += fmt::format(" {}={}", status, count);
  line(fmt::format("tools    {} calls{}", r.tool_calls.size(), status_text));
  for (const auto& id : r.unpaired_calls) line("  unpaired " + id);
  line(fmt::format("usage    input={} output={} cache_read={} cache_write={} reasoning={}",
                   r.usage.input_tokens, r.usage.output_tokens, r.usage.cache_read_tokens,
                   r.usage.cache_write_tokens, r.usage.reasoning_tokens));
  line(fmt::format("pending  {}", r.pending.size()));
  for (const auto& p : r.pending) {
    line(fmt::format("  {} {} {}", to_string(p.kind), p.input_id, p.text.substr(0, 60)));
  }
  if (!r.permission_mode.empty()) line("mode     " + r.permission_mode);
  if (!r.goal.empty()) line("goal     " + std::string(base::utf8::truncate(r.goal, 200)));
  if (!r.approvals.empty()) line(fmt::format("approvals {}", r.approvals.size()));
  for (const auto& a : r.approvals) {
    line(fmt::format("  {} {} {} {}{}", a.decision, a.approval_id, a.tool_name, a.call_id,
                     a.scope.empty() ? "" : " (" + a.scope + ")"));
  }
  if (!r.hooks.empty()) line(fmt::format("hooks    {}", r.hooks.size()));
  for (const auto& h : r.hooks) {
    line(fmt::format("  {} {} {} ms {}{}", h.hook, h.outcome, h.duration_ms,
                     h.command.substr(0, 60),
                     h.reason.empty() ? "" : ": " + h.reason.substr(0, 120)));
  }
  if (r.recoveries > 0) line(fmt::format("recovered {} time(s)", r.recoveries));
  return out;
}

}  // namespace ava::session
