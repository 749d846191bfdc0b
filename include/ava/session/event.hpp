#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/content/items.hpp"

namespace ava::session {

// Sequence numbers start at 1 and grow by one per event in a log.
using Seq = std::uint64_t;

// The provider-neutral event schema of a session log. Each kind has one
// mapping function in the codec (codec.cpp); adding a kind means adding a
// struct here, a name, and both directions there.

struct SessionStarted {
  std::string session_id;
  std::string provider;
  std::string model;
  std::string cwd;
  std::string version;  // Ava's version that created the log
};

enum class InputKind { followup, steer };

struct InputAcknowledged {
  std::string input_id;
  InputKind kind = InputKind::followup;
  std::string text;
  std::vector<content::ImageBlock> attachments;
};

// Input taken into the model context by a step. The gate claims one followup
// on a turn's first step and every pending steer on each step.
struct InputClaimed {
  std::vector<std::string> input_ids;
  std::string turn_id;
  int step = 0;
};

enum class EndReason { completed, aborted, error, max_steps, interrupted };

struct TurnStarted {
  std::string turn_id;
};

struct TurnEnded {
  std::string turn_id;
  EndReason reason = EndReason::completed;
  std::string message;  // why, when not completed
};

struct StepStarted {
  std::string turn_id;
  int step = 0;
  std::string model;
};

struct StepEnded {
  std::string turn_id;
  int step = 0;
  EndReason reason = EndReason::completed;
  std::string stop_reason;  // the provider's, e.g. "end_turn", "tool_use"
};

// One complete model response: thinking, text and tool calls in stream order.
struct AssistantMessage {
  std::string turn_id;
  int step = 0;
  std::vector<content::ContentBlock> content;
};

enum class ToolStatus { ok, error, interrupted, skipped };

struct ToolResult {
  std::string turn_id;
  int step = 0;
  std::string call_id;
  std::string tool_name;
  ToolStatus status = ToolStatus::ok;
  std::vector<content::ToolResultContent> content;
  nlohmann::json details;  // structured data for UIs (a diff, an exit code); null if none
};

struct UsageRecorded {
  std::string turn_id;
  int step = 0;
  std::string model;
  content::Usage usage;
};

struct ModelChanged {
  std::string provider;
  std::string model;
};

struct Paused {};
struct Resumed {};

// Context before `first_kept_seq` is replaced by `summary` for later requests.
struct Compacted {
  std::string summary;
  Seq first_kept_seq = 0;
  std::int64_t tokens_before = 0;
};

struct ErrorOccurred {
  std::string turn_id;  // empty when not inside a turn
  std::string code;
  std::string message;
};

// Written by recovery after it cut a torn tail or closed open lifecycles.
struct Recovered {
  std::uint64_t dropped_bytes = 0;
  std::string torn_file;  // where the dropped bytes were moved; empty if none
  std::vector<std::string> notes;
};

// An event of a kind this version does not know, kept exactly as read.
struct UnknownEvent {
  std::string type;
  nlohmann::json raw;  // the whole object, seq and ts included
};

using EventBody =
    std::variant<SessionStarted, InputAcknowledged, InputClaimed, TurnStarted, TurnEnded,
                 StepStarted, StepEnded, AssistantMessage, ToolResult, UsageRecorded, ModelChanged,
                 Paused, Resumed, Compacted, ErrorOccurred, Recovered, UnknownEvent>;

struct Event {
  Seq seq = 0;
  std::int64_t ts_ms = 0;  // Unix milliseconds
  EventBody body;
  // Fields of a known kind that this version does not know; written back.
  nlohmann::json extra = nlohmann::json::object();
};

// The "type" name of an event body, e.g. "tool_result".
std::string_view type_name(const EventBody& body);
std::string_view to_string(EndReason reason);
std::string_view to_string(ToolStatus status);
std::string_view to_string(InputKind kind);

}  // namespace ava::session
