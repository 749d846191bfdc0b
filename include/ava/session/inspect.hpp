#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/content/items.hpp"
#include "ava/session/context.hpp"
#include "ava/session/log_reader.hpp"

namespace ava::session {

struct TurnSummary {
  std::string turn_id;
  std::string outcome;  // an EndReason name, or "open"
  int steps = 0;
  int tool_calls = 0;
};

struct ToolCallSummary {
  std::string call_id;
  std::string name;
  std::string status;  // a ToolStatus name, or "unpaired"
};

struct ApprovalSummary {
  std::string approval_id;
  std::string call_id;
  std::string tool_name;
  std::string reason;    // why it asked
  std::string decision;  // allow, deny, or "pending" (or "moot": the call was answered without one)
  std::string scope;     // once, conversation, project; empty while pending
  std::string message;   // the person's note
};

struct HookSummary {
  std::string hook;
  std::string command;
  std::string call_id;
  std::string outcome;
  std::int64_t duration_ms = 0;
  std::string reason;
};

// A read-only report of one log (`ava session inspect`).
struct InspectReport {
  std::filesystem::path path;
  std::string session_id;
  std::string model;
  std::uint64_t file_bytes = 0;
  std::uint64_t valid_bytes = 0;
  std::uint64_t events = 0;
  std::optional<TornTail> torn_tail;
  std::map<std::string, std::uint64_t> counts;  // by event type
  std::vector<TurnSummary> turns;
  std::vector<ToolCallSummary> tool_calls;
  std::vector<std::string> unpaired_calls;
  std::vector<PendingInput> pending;
  std::vector<ApprovalSummary> approvals;
  std::vector<HookSummary> hooks;
  std::string permission_mode;  // the last one a person chose; empty: the settings'
  std::string goal;             // set by /goal; empty when none
  content::Usage usage;
  std::uint64_t recoveries = 0;
};

InspectReport inspect_scan(const std::filesystem::path& path, const LogScan& scan);
// Reads without locking or modifying; corruption in the middle is an error.
Result<InspectReport> inspect_log(const std::filesystem::path& path);

nlohmann::json to_json(const InspectReport& report);
std::string to_text(const InspectReport& report);

}  // namespace ava::session
