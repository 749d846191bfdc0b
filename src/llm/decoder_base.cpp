#include "llm/decoder_base.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ava::llm::detail {

std::optional<json> parse_payload(std::string_view data) {
  auto parsed = base::parse_json(data);
  if (!parsed) return std::nullopt;
  return std::move(*parsed);
}

StreamError classify_error(std::string_view type_or_code, std::string message) {
  StreamError error{.kind = ErrorKind::other, .message = std::move(message), .retryable = false};
  if (type_or_code == "overloaded_error" || type_or_code == "overloaded" || type_or_code == "529") {
    error.kind = ErrorKind::overloaded;
  } else if (type_or_code == "rate_limit_error" || type_or_code == "rate_limit_exceeded" ||
             type_or_code == "429") {
    error.kind = ErrorKind::rate_limited;
  } else if (type_or_code == "api_error" || type_or_code == "server_error" ||
             (type_or_code.size() == 3 && type_or_code.front() == '5')) {
    error.kind = ErrorKind::server;
  } else if (type_or_code == "invalid_request_error" || type_or_code == "context_length_exceeded" ||
             type_or_code == "not_found_error" || type_or_code == "request_too_large" ||
             type_or_code == "400" || type_or_code == "404" || type_or_code == "413") {
    error.kind = ErrorKind::invalid_request;
  } else if (type_or_code == "authentication_error" || type_or_code == "permission_error" ||
             type_or_code == "invalid_api_key" || type_or_code == "401" || type_or_code == "403") {
    error.kind = ErrorKind::authentication;
  }
  error.retryable = error.kind == ErrorKind::overloaded || error.kind == ErrorKind::rate_limited ||
                    error.kind == ErrorKind::server;
  if (error.message.empty()) error.message = std::string(type_or_code);
  return error;
}

void DecoderBase::record_error(StreamError error) {
  if (error_) return;
  emit(error);
  error_ = std::move(error);
}

Response DecoderBase::conclude(Message message, Usage usage, Stop stop,
                               std::vector<ToolCallBlock> cut_calls) {
  if (!terminal_seen_ && !error_) {
    record_error(StreamError{
        .kind = ErrorKind::protocol,
        .message = fmt::format("stream ended before {}", terminal_name_),
        .retryable = true,
    });
  }
  if (error_) {
    // Nothing from a failed response may be executed.
    std::erase_if(message.content, [](const ContentBlock& block) {
      return std::holds_alternative<ToolCallBlock>(block);
    });
    stop.reason = StopReason::error;
  }
  if (stop.reason != StopReason::max_tokens) cut_calls.clear();
  for (std::size_t i = 0; i < cut_calls.size(); ++i) {
    if (cut_calls[i].id.empty()) cut_calls[i].id = fmt::format("cut_call_{}", i);
  }
  message.role = Role::assistant;
  emit(UsageReport{usage});
  emit(stop);
  return Response{.message = std::move(message),
                  .usage = usage,
                  .stop = stop,
                  .error = error_,
                  .cut_calls = std::move(cut_calls)};
}

StopReason stop_reason_from_anthropic(std::string_view reason) {
  if (reason == "end_turn") return StopReason::end_turn;
  if (reason == "tool_use") return StopReason::tool_use;
  if (reason == "max_tokens" || reason == "model_context_window_exceeded") {
    return StopReason::max_tokens;
  }
  if (reason == "stop_sequence") return StopReason::stop_sequence;
  if (reason == "refusal") return StopReason::refusal;
  if (reason == "pause_turn") return StopReason::pause;
  return StopReason::other;
}

}  // namespace ava::llm::detail
