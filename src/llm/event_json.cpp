#include "ava/llm/event_json.hpp"

#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"

namespace ava::llm {

namespace {

// ordered_json keeps keys in the documented order ("type" first).
using json = nlohmann::ordered_json;

// Non-UTF-8 bytes from a provider must not make the dump throw.
std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

json usage_json(const Usage& usage) {
  return json{{"inputTokens", usage.input_tokens},
              {"outputTokens", usage.output_tokens},
              {"cacheReadTokens", usage.cache_read_tokens},
              {"cacheWriteTokens", usage.cache_write_tokens},
              {"reasoningTokens", usage.reasoning_tokens}};
}

json error_json(const StreamError& error) {
  return json{
      {"kind", to_string(error.kind)}, {"message", error.message}, {"retryable", error.retryable}};
}

json arguments_json(const std::string& arguments) {
  // The model's text: kept as a string unless it is JSON of sane depth,
  // parsed in its own key order.
  if (!base::check_json_text(arguments)) return arguments;
  auto parsed = json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return arguments;
  return parsed;
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

}  // namespace

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::end_turn: return "end_turn";
    case StopReason::tool_use: return "tool_use";
    case StopReason::max_tokens: return "max_tokens";
    case StopReason::stop_sequence: return "stop_sequence";
    case StopReason::refusal: return "refusal";
    case StopReason::pause: return "pause";
    case StopReason::error: return "error";
    case StopReason::other: return "other";
  }
  return "other";
}

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::overloaded: return "overloaded";
    case ErrorKind::rate_limited: return "rate_limited";
    case ErrorKind::server: return "server";
    case ErrorKind::invalid_request: return "invalid_request";
    case ErrorKind::authentication: return "authentication";
    case ErrorKind::network: return "network";
    case ErrorKind::protocol: return "protocol";
    case ErrorKind::other: return "other";
  }
  return "other";
}

std::string event_json_line(const StreamEvent& event) {
  json line =
      std::visit(Overloaded{
                     [](const TextDelta& e) {
                       return json{{"type", "text_delta"}, {"text", e.text}};
                     },
                     [](const ThinkingDelta& e) {
                       return json{{"type", "thinking_delta"}, {"text", e.text}};
                     },
                     [](const ToolCallStart& e) {
                       return json{{"type", "tool_call_start"}, {"id", e.id}, {"name", e.name}};
                     },
                     [](const ToolCallDelta& e) {
                       return json{{"type", "tool_call_delta"},
                                   {"id", e.id},
                                   {"argumentsDelta", e.arguments_fragment}};
                     },
                     [](const ToolCallComplete& e) {
                       return json{{"type", "tool_call_complete"},
                                   {"id", e.call.id},
                                   {"name", e.call.name},
                                   {"arguments", arguments_json(e.call.arguments)}};
                     },
                     [](const UsageReport& e) {
                       return json{{"type", "usage"}, {"usage", usage_json(e.usage)}};
                     },
                     [](const Stop& e) {
                       return json{{"type", "stop"},
                                   {"reason", to_string(e.reason)},
                                   {"providerReason", e.provider_reason}};
                     },
                     [](const StreamError& e) {
                       json out = error_json(e);
                       out["type"] = "error";
                       return out;
                     },
                 },
                 event);
  return dump(line);
}

std::string summary_json_line(const Response& response) {
  std::string text;
  std::string thinking;
  json calls = json::array();
  for (const auto& block : response.message.content) {
    if (const auto* text_block = std::get_if<TextBlock>(&block)) text += text_block->text;
    if (const auto* thinking_block = std::get_if<ThinkingBlock>(&block))
      thinking += thinking_block->text;
    if (const auto* call = std::get_if<ToolCallBlock>(&block)) {
      calls.push_back(json{
          {"id", call->id}, {"name", call->name}, {"arguments", arguments_json(call->arguments)}});
    }
  }
  json line{{"type", "summary"},
            {"text", text},
            {"thinking", thinking},
            {"toolCalls", calls},
            {"stopReason", to_string(response.stop.reason)},
            {"providerStopReason", response.stop.provider_reason},
            {"usage", usage_json(response.usage)},
            {"error", response.error ? error_json(*response.error) : json(nullptr)}};
  return dump(line);
}

}  // namespace ava::llm
