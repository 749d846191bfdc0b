#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ava/llm/encode.hpp"

using nlohmann::json;
namespace llm = ava::llm;

namespace {

// A conversation with every kind of block: text, image, thinking with a
// signature, redacted thinking, a tool call and its result (text + image).
llm::Request full_request() {
  llm::Request request;
  request.model = "model-x";
  request.system = "Be brief.";
  request.max_output_tokens = 1000;
  request.tools.push_back(llm::ToolSpec{
      .name = "read",
      .description = "Read a file",
      .parameters = json{{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}}});
  request.messages.push_back(llm::Message{
      .role = llm::Role::user,
      .content = {llm::TextBlock{"Look at this"},
                  llm::ImageBlock{.media_type = "image/png", .data = "iVBORw0KGgo="}}});
  request.messages.push_back(llm::Message{
      .role = llm::Role::assistant,
      .content = {
          llm::ThinkingBlock{.text = "hm", .signature = "sig=="},
          llm::ThinkingBlock{.redacted_data = "REDACTED"},
          llm::ThinkingBlock{.text = "from elsewhere"}, llm::TextBlock{"Reading."},
          llm::ToolCallBlock{.id = "call_1", .name = "read", .arguments = R"({"path":"a.txt"})"}}});
  request.messages.push_back(
      llm::Message{.role = llm::Role::tool,
                   .content = {llm::ToolResultBlock{
                       .call_id = "call_1",
                       .content = {llm::TextBlock{"hello"},
                                   llm::ImageBlock{.media_type = "image/jpeg", .data = "/9j/"}},
                       .is_error = false}}});
  return request;
}

}  // namespace

TEST_CASE("anthropic request replays thinking signatures and redacted thinking verbatim",
          "[encode]") {
  json body = json::parse(llm::encode_anthropic_request(full_request()));
  CHECK(body["stream"] == true);
  CHECK(body["max_tokens"] == 1000);
  const json& assistant = body["messages"][1];
  CHECK(assistant["role"] == "assistant");
  REQUIRE(assistant["content"].size() == 4);  // thinking without signature is dropped
  CHECK(assistant["content"][0] ==
        json{{"type", "thinking"}, {"thinking", "hm"}, {"signature", "sig=="}});
  CHECK(assistant["content"][1] == json{{"type", "redacted_thinking"}, {"data", "REDACTED"}});
  CHECK(assistant["content"][3]["type"] == "tool_use");
  CHECK(assistant["content"][3]["input"] == json{{"path", "a.txt"}});
}

TEST_CASE("anthropic request sends images, tool results and cache breakpoints", "[encode]") {
  json body = json::parse(llm::encode_anthropic_request(full_request()));
  CHECK(body["system"][0]["text"] == "Be brief.");
  CHECK(body["system"][0]["cache_control"]["type"] == "ephemeral");
  CHECK(body["tools"][0]["input_schema"]["type"] == "object");
  CHECK(body["tools"][0]["cache_control"]["type"] == "ephemeral");
  const json& image = body["messages"][0]["content"][1];
  CHECK(image["source"] ==
        json{{"type", "base64"}, {"media_type", "image/png"}, {"data", "iVBORw0KGgo="}});
  const json& result = body["messages"][2];
  CHECK(result["role"] == "user");
  CHECK(result["content"][0]["type"] == "tool_result");
  CHECK(result["content"][0]["tool_use_id"] == "call_1");
  CHECK(result["content"][0]["content"][1]["source"]["media_type"] == "image/jpeg");
  CHECK(result["content"][0]["cache_control"]["type"] ==
        "ephemeral");  // last block of the last message
  CHECK_FALSE(body["messages"][0]["content"][1].contains("cache_control"));

  llm::Request uncached = full_request();
  uncached.prompt_caching = false;
  CHECK(llm::encode_anthropic_request(uncached).find("cache_control") == std::string::npos);
}

TEST_CASE("anthropic request enables extended thinking with a budget", "[encode]") {
  llm::Request request = full_request();
  request.thinking_budget_tokens = 4000;
  json body = json::parse(llm::encode_anthropic_request(request));
  CHECK(body["thinking"] == json{{"type", "enabled"}, {"budget_tokens", 4000}});
}

TEST_CASE("chat request asks for usage and sends tool calls and tool messages", "[encode]") {
  json body = json::parse(llm::encode_chat_request(full_request()));
  CHECK(body["stream"] == true);
  CHECK(body["stream_options"]["include_usage"] == true);
  CHECK(body["messages"][0] == json{{"role", "system"}, {"content", "Be brief."}});
  CHECK(body["messages"][1]["content"][1]["image_url"]["url"] ==
        "data:image/png;base64,iVBORw0KGgo=");
  const json& assistant = body["messages"][2];
  CHECK(assistant["content"] == "Reading.");
  CHECK(assistant["tool_calls"][0] ==
        json{{"id", "call_1"},
             {"type", "function"},
             {"function", {{"name", "read"}, {"arguments", "{\"path\":\"a.txt\"}"}}}});
  CHECK(body["messages"][3] ==
        json{{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "hello"}});
  CHECK(body["messages"][4]["role"] == "user");  // the result's image follows
  CHECK(body["tools"][0]["function"]["name"] == "read");
}

TEST_CASE("responses request replays reasoning and pairs calls with outputs", "[encode]") {
  llm::Request request = full_request();
  request.messages[1].content.emplace_back(
      llm::ThinkingBlock{.text = "sum", .encrypted_content = "gAAA", .provider_id = "rs_9"});
  // An interrupted call with no result must not reach the next request.
  request.messages[1].content.emplace_back(
      llm::ToolCallBlock{.id = "call_orphan", .name = "read", .arguments = "{}"});
  json body = json::parse(llm::encode_responses_request(request));
  CHECK(body["store"] == false);
  CHECK(body["instructions"] == "Be brief.");
  std::vector<std::string> types;
  for (const auto& item : body["input"]) types.push_back(item["type"]);
  CHECK(types == std::vector<std::string>{"message", "message", "function_call", "reasoning",
                                          "function_call_output"});
  CHECK(body["input"][0]["content"][1]["type"] == "input_image");
  CHECK(body["input"][1]["content"][0] == json{{"type", "output_text"}, {"text", "Reading."}});
  CHECK(body["input"][2]["call_id"] == "call_1");
  CHECK(body["input"][3]["encrypted_content"] == "gAAA");
  CHECK(body["input"][3]["id"] == "rs_9");
  CHECK(body["input"][4] ==
        json{{"type", "function_call_output"}, {"call_id", "call_1"}, {"output", "hello"}});
  CHECK(body["tools"][0]["name"] == "read");
  CHECK(llm::encode_responses_request(request).find("call_orphan") == std::string::npos);
}
