// Parses the mock provider's script format (docs/providers.md).

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/llm/mock_provider.hpp"

namespace ava::llm {

namespace {

using nlohmann::json;

std::optional<StopReason> stop_reason_named(std::string_view name) {
  static constexpr std::pair<std::string_view, StopReason> names[] = {
      {"end_turn", StopReason::end_turn},     {"tool_use", StopReason::tool_use},
      {"max_tokens", StopReason::max_tokens}, {"stop_sequence", StopReason::stop_sequence},
      {"refusal", StopReason::refusal},       {"pause", StopReason::pause},
      {"error", StopReason::error},           {"other", StopReason::other}};
  for (const auto& [key, reason] : names) {
    if (key == name) return reason;
  }
  return std::nullopt;
}

std::optional<ErrorKind> error_kind_named(std::string_view name) {
  static constexpr std::pair<std::string_view, ErrorKind> names[] = {
      {"overloaded", ErrorKind::overloaded},
      {"rate_limited", ErrorKind::rate_limited},
      {"server", ErrorKind::server},
      {"invalid_request", ErrorKind::invalid_request},
      {"authentication", ErrorKind::authentication},
      {"network", ErrorKind::network},
      {"protocol", ErrorKind::protocol},
      {"other", ErrorKind::other}};
  for (const auto& [key, kind] : names) {
    if (key == name) return kind;
  }
  return std::nullopt;
}

Result<MockResponse> parse_response(const json& entry, std::size_t index) {
  MockResponse response;
  auto where = [&](std::string_view what) {
    return fmt::format("mock response {}: {}", index, what);
  };
  if (!entry.is_object() || !entry.contains("steps") || !entry["steps"].is_array()) {
    return fail(ErrorCode::parse, where("needs a \"steps\" array"));
  }
  for (const json& step : entry["steps"]) {
    if (step.contains("text")) {
      response.steps.emplace_back(TextBlock{step["text"].get<std::string>()});
    } else if (step.contains("thinking")) {
      response.steps.emplace_back(
          ThinkingBlock{.text = step["thinking"].get<std::string>(),
                        .signature = step.value("signature", std::string{})});
    } else if (step.contains("toolCall")) {
      const json& call = step["toolCall"];
      const json& arguments = call.contains("arguments") ? call["arguments"] : json::object();
      // Arguments given as a string are sent as-is, so a script can play malformed JSON.
      response.steps.emplace_back(ToolCallBlock{
          .id = call.value("id", fmt::format("call_{}_{}", index, response.steps.size())),
          .name = call.at("name").get<std::string>(),
          .arguments = arguments.is_string() ? arguments.get<std::string>() : arguments.dump()});
    } else if (step.contains("delayMs")) {
      response.steps.emplace_back(
          MockDelay{std::chrono::milliseconds(step["delayMs"].get<std::int64_t>())});
    } else if (step.contains("error")) {
      const json& error = step["error"];
      auto kind = error_kind_named(error.value("kind", std::string("other")));
      if (!kind) return fail(ErrorCode::parse, where("unknown error kind"));
      response.steps.emplace_back(
          StreamError{.kind = *kind,
                      .message = error.value("message", std::string("mock error")),
                      .retryable = error.value("retryable", false)});
    } else {
      return fail(ErrorCode::parse,
                  where("a step needs text, thinking, toolCall, delayMs or error"));
    }
  }
  if (entry.contains("stopReason")) {
    auto reason = stop_reason_named(entry["stopReason"].get<std::string>());
    if (!reason) return fail(ErrorCode::parse, where("unknown stopReason"));
    response.stop =
        Stop{.reason = *reason, .provider_reason = entry["stopReason"].get<std::string>()};
  }
  if (entry.contains("usage")) {
    const json& usage = entry["usage"];
    response.usage = Usage{.input_tokens = usage.value("inputTokens", std::int64_t{0}),
                           .output_tokens = usage.value("outputTokens", std::int64_t{0}),
                           .cache_read_tokens = usage.value("cacheReadTokens", std::int64_t{0}),
                           .cache_write_tokens = usage.value("cacheWriteTokens", std::int64_t{0}),
                           .reasoning_tokens = usage.value("reasoningTokens", std::int64_t{0})};
  }
  return response;
}

}  // namespace

Result<MockScript> parse_mock_script(std::string_view json_text) {
  try {
    json document = json::parse(json_text);
    if (!document.is_object() || !document.contains("responses") ||
        !document["responses"].is_array()) {
      return fail(ErrorCode::parse, "mock script needs a \"responses\" array");
    }
    MockScript script;
    for (std::size_t i = 0; i < document["responses"].size(); ++i) {
      AVA_TRY(auto response, parse_response(document["responses"][i], i));
      script.responses.push_back(std::move(response));
    }
    return script;
  } catch (const json::exception& e) {
    return fail(ErrorCode::parse, fmt::format("mock script: {}", e.what()));
  }
}

Result<MockScript> load_mock_script(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(ErrorCode::not_found, fmt::format("cannot read mock script {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_mock_script(text.str());
}

}  // namespace ava::llm
