#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/session/event.hpp"

// `ava eval diagnose` (docs/eval.md): evidence from a session log, read
// from the log itself (the one authority). Each finding names where it is
// (session, seq) and how many characters it holds; it says what happened,
// never what it cost in tokens or whether it was wasteful.
namespace ava::eval {

enum class FindingKind {
  repeated_call,       // the same tool with the same arguments as an earlier call
  error_result,        // a tool result with status error
  truncated_output,    // a tool result that carries a truncation marker
  truncated_response,  // a model response that stopped at its output limit
  compaction,          // earlier context replaced by a summary
  interrupted_call,    // a call interrupted or skipped (abort, crash)
  unpaired_call,       // a call with no result in the log
  no_progress_step,    // a step whose every call failed or repeated an earlier one
  turn_not_completed,  // a turn that ended error, max_steps, aborted or interrupted
};
std::string_view to_string(FindingKind kind);

struct Finding {
  FindingKind kind = FindingKind::error_result;
  session::Seq seq = 0;               // the event that shows it
  std::vector<session::Seq> related;  // e.g. the earlier identical call
  std::string turn_id;
  int step = 0;
  std::string tool;
  std::string call_id;
  std::uint64_t chars = 0;  // characters of the evidence (arguments, result text, summary)
  std::string detail;       // factual, one line
};

struct SessionDiagnosis {
  std::filesystem::path log;
  std::string session_id;
  std::uint64_t events = 0;
  int turns = 0;
  int steps = 0;
  int tool_calls = 0;
  bool torn_tail = false;  // unreadable bytes at the end (left as they are)
  std::vector<Finding> findings;
  std::map<std::string, int> counts;  // by finding kind
};

// Reads without locking or changing the log; a torn tail is reported and the
// complete events before it are diagnosed.
Result<SessionDiagnosis> diagnose_log(const std::filesystem::path& log);

nlohmann::json to_json(const std::vector<SessionDiagnosis>& sessions);
std::string to_text(const std::vector<SessionDiagnosis>& sessions);

}  // namespace ava::eval
