#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ava/llm/items.hpp"

namespace ava::llm {

// Events an adapter emits while a response streams. Text and thinking deltas
// are for live display; the assembled response is what gets recorded.

struct TextDelta {
  std::string text;
};

struct ThinkingDelta {
  std::string text;
};

struct ToolCallStart {
  std::string id;
  std::string name;
};

struct ToolCallDelta {
  std::string id;
  std::string arguments_fragment;
};

// A tool call whose arguments are complete (valid or not: the agent decides).
struct ToolCallComplete {
  ToolCallBlock call;
};

struct UsageReport {
  Usage usage;
};

enum class StopReason {
  end_turn,
  tool_use,
  max_tokens,
  stop_sequence,
  refusal,
  pause,
  error,
  other
};

struct Stop {
  StopReason reason = StopReason::end_turn;
  std::string provider_reason;  // the provider's own word, e.g. "stop", "tool_calls"
};

enum class ErrorKind {
  overloaded,
  rate_limited,
  server,
  invalid_request,
  authentication,
  network,
  protocol,
  other
};

struct StreamError {
  ErrorKind kind = ErrorKind::other;
  std::string message;
  bool retryable = false;
};

using StreamEvent = std::variant<TextDelta, ThinkingDelta, ToolCallStart, ToolCallDelta,
                                 ToolCallComplete, UsageReport, Stop, StreamError>;

// The assembled result of one streamed response.
struct Response {
  Message message;  // role assistant: thinking, text and tool calls in stream order
  Usage usage;
  Stop stop;
  std::optional<StreamError> error;
  // Tool calls the output limit cut off (stop max_tokens): their arguments
  // (what arrived) may be incomplete, so they are never run; the agent
  // records them with a result that says so, for the user and the model.
  std::vector<ToolCallBlock> cut_calls;
};

}  // namespace ava::llm
