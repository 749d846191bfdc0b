#include "ava/eval/diagnose.hpp"

#include <array>
#include <set>

#include <fmt/format.h>

#include "ava/base/json.hpp"
#include "ava/base/utf8.hpp"
#include "ava/session/log_reader.hpp"

namespace ava::eval {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What Ava's own tools and log writer put where they cut output
// (proc/capture.cpp, tool/bash_tool.cpp, tool/read_tool.cpp, session/bound.cpp).
constexpr std::array truncation_markers = {
    std::string_view("[output truncated:"), std::string_view("bytes omitted ...]"),
    std::string_view("line truncated,"), std::string_view("bytes truncated by Ava")};

// Provider stop words for a response cut at its output limit.
constexpr std::array length_stops = {std::string_view("max_tokens"), std::string_view("length"),
                                     std::string_view("max_output_tokens")};

std::uint64_t chars(std::string_view text) { return base::utf8::code_points(text); }

std::string result_text(const std::vector<content::ToolResultContent>& parts) {
  std::string text;
  for (const auto& part : parts) {
    if (const auto* block = std::get_if<content::TextBlock>(&part)) {
      if (!text.empty()) text += '\n';
      text += block->text;
    }
  }
  return text;
}

std::string first_line(std::string_view text, std::size_t max_bytes = 160) {
  const auto end = text.find('\n');
  std::string_view line = text.substr(0, end);
  const bool cut = line.size() > max_bytes || end != std::string_view::npos;
  return std::string(base::utf8::truncate(line, max_bytes)) + (cut ? " …" : "");
}

// The arguments as compared: parsed and re-dumped (key order and spacing
// do not make two calls different), or the raw text when it is not JSON.
std::string canonical_arguments(const std::string& arguments) {
  auto parsed = base::parse_json(arguments.empty() ? "{}" : arguments);
  return parsed ? parsed->dump() : arguments;
}

std::string ordinal(int n) {
  const int tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return fmt::format("{}{}", n, suffix);
}

struct CallSeen {
  session::Seq seq = 0;
  std::string turn_id;
  int step = 0;
  std::string name;
  std::string arguments;
  bool repeat = false;
};

struct StepSeen {
  int calls = 0;
  int failed_or_repeated = 0;
};

class Diagnoser {
 public:
  explicit Diagnoser(SessionDiagnosis& out) : out_(out) {}

  void on(const session::Event& event) {
    ++out_.events;
    std::visit([&](const auto& body) { handle(event.seq, body); }, event.body);
  }

  void finish() {
    for (const auto& [id, call] : calls_) {
      if (answered_.contains(id)) continue;
      add({.kind = FindingKind::unpaired_call,
           .seq = call.seq,
           .turn_id = call.turn_id,
           .step = call.step,
           .tool = call.name,
           .call_id = id,
           .chars = chars(call.arguments),
           .detail = "no result for this call in the log"});
    }
    for (const auto& finding : out_.findings) ++out_.counts[std::string(to_string(finding.kind))];
  }

 private:
  void add(Finding finding) { out_.findings.push_back(std::move(finding)); }

  void handle(session::Seq, const session::SessionStarted& started) {
    out_.session_id = started.session_id;
  }
  void handle(session::Seq, const session::TurnStarted&) { ++out_.turns; }
  void handle(session::Seq, const session::StepStarted&) { ++out_.steps; }

  void handle(session::Seq seq, const session::AssistantMessage& message) {
    for (const auto& block : message.content) {
      const auto* call = std::get_if<content::ToolCallBlock>(&block);
      if (!call) continue;
      ++out_.tool_calls;
      CallSeen seen{.seq = seq,
                    .turn_id = message.turn_id,
                    .step = message.step,
                    .name = call->name,
                    .arguments = call->arguments};
      const std::string key = call->name + '\n' + canonical_arguments(call->arguments);
      auto& earlier = by_arguments_[key];
      if (!earlier.empty()) {
        seen.repeat = true;
        add({.kind = FindingKind::repeated_call,
             .seq = seq,
             .related = earlier,
             .turn_id = message.turn_id,
             .step = message.step,
             .tool = call->name,
             .call_id = call->id,
             .chars = chars(call->arguments),
             .detail =
                 fmt::format("same tool and arguments as the call at seq {} ({} time)",
                             earlier.front(), ordinal(static_cast<int>(earlier.size()) + 1))});
      }
      earlier.push_back(seq);
      auto& step = steps_[{message.turn_id, message.step}];
      ++step.calls;
      if (seen.repeat) ++step.failed_or_repeated;
      calls_[call->id] = std::move(seen);
    }
  }

  void handle(session::Seq seq, const session::ToolResult& result) {
    answered_.insert(result.call_id);
    const std::string text = result_text(result.content);
    const auto call = calls_.find(result.call_id);
    const bool repeat = call != calls_.end() && call->second.repeat;
    Finding base{.seq = seq,
                 .related = call != calls_.end() ? std::vector<session::Seq>{call->second.seq}
                                                 : std::vector<session::Seq>{},
                 .turn_id = result.turn_id,
                 .step = result.step,
                 .tool = result.tool_name,
                 .call_id = result.call_id,
                 .chars = chars(text)};
    if (result.status == session::ToolStatus::error) {
      Finding finding = base;
      finding.kind = FindingKind::error_result;
      finding.detail = first_line(text);
      add(std::move(finding));
      if (!repeat) ++steps_[{result.turn_id, result.step}].failed_or_repeated;
    } else if (result.status == session::ToolStatus::interrupted ||
               result.status == session::ToolStatus::skipped) {
      Finding finding = base;
      finding.kind = FindingKind::interrupted_call;
      finding.detail = fmt::format("the call was {}", session::to_string(result.status));
      add(std::move(finding));
    }
    for (const auto marker : truncation_markers) {
      const auto at = text.find(marker);
      if (at == std::string::npos) continue;
      Finding finding = base;
      finding.kind = FindingKind::truncated_output;
      // The marker's own line, from its opening bracket.
      const auto line_start = text.rfind('[', at);
      const std::string_view from =
          std::string_view(text).substr(line_start == std::string::npos ? at : line_start);
      finding.detail = std::string(base::utf8::truncate(from.substr(0, from.find('\n')), 160));
      add(std::move(finding));
      break;
    }
  }

  void handle(session::Seq seq, const session::StepEnded& ended) {
    for (const auto stop : length_stops) {
      if (ended.stop_reason != stop) continue;
      add({.kind = FindingKind::truncated_response,
           .seq = seq,
           .turn_id = ended.turn_id,
           .step = ended.step,
           .detail = fmt::format("the response stopped at its output limit (stop reason {})",
                                 ended.stop_reason)});
    }
    const auto found = steps_.find({ended.turn_id, ended.step});
    if (found != steps_.end() && found->second.calls > 0 &&
        found->second.failed_or_repeated == found->second.calls) {
      add({.kind = FindingKind::no_progress_step,
           .seq = seq,
           .turn_id = ended.turn_id,
           .step = ended.step,
           .detail = fmt::format("every call of the step ({}) failed or repeated an earlier call",
                                 found->second.calls)});
    }
  }

  void handle(session::Seq seq, const session::Compacted& compacted) {
    add({.kind = FindingKind::compaction,
         .seq = seq,
         .related = {compacted.first_kept_seq},
         .chars = chars(compacted.summary),
         .detail = fmt::format("context before seq {} replaced by a summary ({} tokens before, as "
                               "recorded)",
                               compacted.first_kept_seq, compacted.tokens_before)});
  }

  void handle(session::Seq seq, const session::TurnEnded& ended) {
    if (ended.reason == session::EndReason::completed) return;
    add({.kind = FindingKind::turn_not_completed,
         .seq = seq,
         .turn_id = ended.turn_id,
         .chars = chars(ended.message),
         .detail = ended.message.empty()
                       ? fmt::format("the turn ended {}", session::to_string(ended.reason))
                       : fmt::format("the turn ended {}: {}", session::to_string(ended.reason),
                                     first_line(ended.message))});
  }

  template <class T>
  void handle(session::Seq, const T&) {}

  SessionDiagnosis& out_;
  std::map<std::string, CallSeen> calls_;
  std::set<std::string> answered_;
  std::map<std::string, std::vector<session::Seq>> by_arguments_;
  std::map<std::pair<std::string, int>, StepSeen> steps_;
};

json finding_json(const Finding& f) {
  json out{{"kind", to_string(f.kind)}, {"seq", f.seq}, {"chars", f.chars}, {"detail", f.detail}};
  if (!f.related.empty()) out["related"] = f.related;
  if (!f.turn_id.empty()) out["turnId"] = f.turn_id;
  if (f.step > 0) out["step"] = f.step;
  if (!f.tool.empty()) out["tool"] = f.tool;
  if (!f.call_id.empty()) out["callId"] = f.call_id;
  return out;
}

}  // namespace

std::string_view to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::repeated_call: return "repeated_call";
    case FindingKind::error_result: return "error_result";
    case FindingKind::truncated_output: return "truncated_output";
    case FindingKind::truncated_response: return "truncated_response";
    case FindingKind::compaction: return "compaction";
    case FindingKind::interrupted_call: return "interrupted_call";
    case FindingKind::unpaired_call: return "unpaired_call";
    case FindingKind::no_progress_step: return "no_progress_step";
    case FindingKind::turn_not_completed: return "turn_not_completed";
  }
  return "unknown";
}

Result<SessionDiagnosis> diagnose_log(const fs::path& log) {
  AVA_TRY(auto scan, session::read_log(log));
  SessionDiagnosis out{.log = log, .torn_tail = scan.torn_tail.has_value()};
  Diagnoser diagnoser(out);
  for (const auto& event : scan.events) diagnoser.on(event);
  diagnoser.finish();
  std::stable_sort(out.findings.begin(), out.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.seq < b.seq; });
  return out;
}

json to_json(const std::vector<SessionDiagnosis>& sessions) {
  json list = json::array();
  for (const auto& s : sessions) {
    json findings = json::array();
    for (const auto& f : s.findings) findings.push_back(finding_json(f));
    list.push_back({{"session", s.session_id},
                    {"log", s.log.string()},
                    {"events", s.events},
                    {"turns", s.turns},
                    {"steps", s.steps},
                    {"toolCalls", s.tool_calls},
                    {"tornTail", s.torn_tail},
                    {"counts", s.counts},
                    {"findings", std::move(findings)}});
  }
  return {{"sessions", std::move(list)}};
}

std::string to_text(const std::vector<SessionDiagnosis>& sessions) {
  std::string out;
  for (const auto& s : sessions) {
    out += fmt::format("{} ({})\n  {} events, {} turns, {} steps, {} tool calls{}\n", s.session_id,
                       s.log.string(), s.events, s.turns, s.steps, s.tool_calls,
                       s.torn_tail ? "; a torn tail after the last complete event" : "");
    if (s.findings.empty()) {
      out += "  no findings\n";
      continue;
    }
    for (const auto& f : s.findings) {
      std::string where = f.tool.empty() ? std::string() : " " + f.tool;
      if (!f.call_id.empty()) where += " " + f.call_id;
      out += fmt::format("  seq {:<6} {:<18}{} ({} chars): {}\n", f.seq, to_string(f.kind), where,
                         f.chars, f.detail);
    }
    std::string counts;
    for (const auto& [kind, count] : s.counts) {
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", kind, count);
    }
    out += "  " + counts + "\n";
  }
  return out;
}

}  // namespace ava::eval
