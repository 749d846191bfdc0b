// The recording's JSON: every request, event and response shape survives a
// round trip, hostile or malformed lines are refused naming the field, and
// differences are reported where they are.
#include <catch2/catch.hpp>

#include "ava/base/json.hpp"
#include "ava/recording/json.hpp"

using namespace ava;
using namespace ava::recording;
using nlohmann::json;

namespace {

llm::Request sample_request() {
  return {.model = "claude-test",
          .system = "You are Ava.",
          .messages =
              {{.role = content::Role::user,
                .content = {content::TextBlock{"fix it"},
                            content::ImageBlock{.media_type = "image/png", .data = "iVBOR"}}},
               {.role = content::Role::assistant,
                .content = {content::ThinkingBlock{.text = "hm", .signature = "sig"},
                            content::ToolCallBlock{
                                .id = "c1", .name = "bash", .arguments = R"({"command":"ls"})"}}},
               {.role = content::Role::tool,
                .content = {content::ToolResultBlock{
                    .call_id = "c1", .content = {content::TextBlock{"a.txt"}}, .is_error = true}}}},
          .tools = {{.name = "bash", .description = "Run", .parameters = {{"type", "object"}}}},
          .max_output_tokens = 4096,
          .prompt_caching = true};
}

}  // namespace

TEST_CASE("a request survives the round trip") {
  const auto request = sample_request();
  const json encoded = encode_request(request);
  auto decoded = decode_request(encoded);
  REQUIRE(decoded);
  CHECK(decoded->messages == request.messages);
  CHECK(decoded->tools == request.tools);
  CHECK(decoded->max_output_tokens == request.max_output_tokens);
  CHECK_FALSE(decoded->thinking_budget_tokens);
  CHECK(encode_request(*decoded) == encoded);
}

TEST_CASE("every stream event and a response survive the round trip") {
  const std::vector<llm::StreamEvent> events{
      llm::TextDelta{"he"},
      llm::ThinkingDelta{"th"},
      llm::ToolCallStart{"c1", "bash"},
      llm::ToolCallDelta{"c1", "{\"com"},
      llm::ToolCallComplete{{.id = "c1", .name = "bash", .arguments = "{}"}},
      llm::UsageReport{{.input_tokens = 5, .output_tokens = 2, .cache_read_tokens = 1}},
      llm::Stop{.reason = llm::StopReason::tool_use, .provider_reason = "tool_use"},
      llm::StreamError{.kind = llm::ErrorKind::overloaded, .message = "busy", .retryable = true}};
  for (const auto& event : events) {
    auto decoded = decode_event(encode_event(event));
    REQUIRE(decoded);
    CHECK(encode_event(*decoded) == encode_event(event));
  }
  llm::Response response{
      .message = {.role = content::Role::assistant, .content = {content::TextBlock{"done"}}},
      .usage = {.input_tokens = 3},
      .stop = {.reason = llm::StopReason::end_turn, .provider_reason = "end_turn"},
      .error = llm::StreamError{.kind = llm::ErrorKind::network, .message = "cut"}};
  auto decoded = decode_response(encode_response(response));
  REQUIRE(decoded);
  CHECK(decoded->message == response.message);
  CHECK(decoded->usage == response.usage);
  REQUIRE(decoded->error);
  CHECK(decoded->error->kind == llm::ErrorKind::network);
}

TEST_CASE("malformed recordings are refused naming the field") {
  json request = encode_request(sample_request());
  request["messages"][1]["content"][0]["type"] = "video";
  auto decoded = decode_request(request);
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().message == "messages[1].content[0].type: unknown block kind \"video\"");

  request = encode_request(sample_request());
  request["messages"][0]["role"] = 7;
  decoded = decode_request(request);
  REQUIRE_FALSE(decoded);
  CHECK(decoded.error().message == "messages[0].role: expected a string");

  CHECK_FALSE(decode_event(
      json{{"type", "stop"}, {"stop", {{"reason", "bored"}, {"providerReason", ""}}}}));
  CHECK_FALSE(decode_event(json::array()));
  CHECK_FALSE(decode_event(json{{"type", "teleport"}}));
  // A tool result holds text and images only.
  CHECK_FALSE(decode_tool_content(
      json::array({{{"type", "toolCall"}, {"id", "x"}, {"name", "y"}, {"arguments", ""}}})));
}

TEST_CASE("the first difference names the path and both values") {
  json recorded = encode_request(sample_request());
  json now = recorded;
  CHECK(first_difference(recorded, now).empty());
  now["messages"][0]["content"][0]["text"] = "fix that";
  const std::string difference = first_difference(recorded, now);
  CHECK(difference.starts_with("messages[0].content[0].text: recorded \"fix it\""));
  CHECK(difference.find("now \"fix that\"") != std::string::npos);
  CHECK(difference.find("character 4") != std::string::npos);

  now = recorded;
  now["messages"].erase(2);
  CHECK(first_difference(recorded, now) == "messages: recorded 3 items, now 2");
  now = recorded;
  now["maxOutputTokens"] = 100;
  CHECK(first_difference(recorded, now) == "maxOutputTokens: recorded 4096, now 100");
  now = recorded;
  now.erase("system");
  CHECK(first_difference(recorded, now)
            .starts_with("system: recorded \"You are Ava.\", now missing"));
}
