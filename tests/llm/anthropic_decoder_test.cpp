#include <catch2/catch.hpp>

#include "ava/llm/decoder.hpp"
#include "llm/stream_builder.hpp"

using ava::test::decode;
using ava::test::SseBody;
using nlohmann::json;
namespace llm = ava::llm;

namespace {

json message_start(const std::string& id = "msg_1") {
  return {
      {"type", "message_start"},
      {"message",
       {{"id", id},
        {"role", "assistant"},
        {"content", json::array()},
        {"usage", {{"input_tokens", 10}, {"cache_read_input_tokens", 4}, {"output_tokens", 1}}}}}};
}
json block_start(int index, const json& block) {
  return {{"type", "content_block_start"}, {"index", index}, {"content_block", block}};
}
json delta(int index, const json& body) {
  return {{"type", "content_block_delta"}, {"index", index}, {"delta", body}};
}
json block_stop(int index) { return {{"type", "content_block_stop"}, {"index", index}}; }
json message_delta(const std::string& reason, int output_tokens) {
  return {{"type", "message_delta"},
          {"delta", {{"stop_reason", reason}}},
          {"usage", {{"output_tokens", output_tokens}}}};
}
json message_stop() { return {{"type", "message_stop"}}; }

constexpr auto anthropic = llm::WireApi::anthropic_messages;

}  // namespace

TEST_CASE("anthropic thinking text, signature and redacted data are kept byte-exact",
          "[anthropic]") {
  std::string signature = "EqQBCkYIARgCIkB+/=sig\\u00e9";
  auto decoded =
      decode(anthropic,
             SseBody{}
                 .typed(message_start())
                 .typed(block_start(0, {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}))
                 .typed(delta(0, {{"type", "thinking_delta"}, {"thinking", "Let me "}}))
                 .typed(delta(0, {{"type", "thinking_delta"}, {"thinking", ""}}))
                 .typed(delta(0, {{"type", "thinking_delta"}, {"thinking", "think."}}))
                 .typed(delta(0, {{"type", "signature_delta"}, {"signature", signature}}))
                 .typed(block_stop(0))
                 .typed(block_start(1, {{"type", "redacted_thinking"}, {"data", "opaque+/=="}}))
                 .typed(block_stop(1))
                 .typed(block_start(2, {{"type", "text"}, {"text", ""}}))
                 .typed(delta(2, {{"type", "text_delta"}, {"text", "Answer"}}))
                 .typed(block_stop(2))
                 .typed(message_delta("end_turn", 42))
                 .typed(message_stop())
                 .str());
  const auto& content = decoded.response.message.content;
  REQUIRE(content.size() == 3);
  auto thinking = std::get<llm::ThinkingBlock>(content[0]);
  CHECK(thinking.text == "Let me think.");
  CHECK(thinking.signature == signature);
  CHECK(std::get<llm::ThinkingBlock>(content[1]).redacted_data == "opaque+/==");
  CHECK(std::get<llm::TextBlock>(content[2]).text == "Answer");
  CHECK(decoded.all<llm::ThinkingDelta>().size() == 2);  // the empty delta is not emitted
  CHECK(decoded.response.usage.input_tokens == 10);
  CHECK(decoded.response.usage.cache_read_tokens == 4);
  CHECK(decoded.response.usage.output_tokens == 42);
  CHECK(decoded.response.stop.reason == llm::StopReason::end_turn);
}

TEST_CASE("anthropic tool input fragments are joined and the call completes at block stop",
          "[anthropic]") {
  auto decoded = decode(
      anthropic,
      SseBody{}
          .typed(message_start())
          .typed(block_start(0, {{"type", "tool_use"},
                                 {"id", "toolu_1"},
                                 {"name", "read"},
                                 {"input", json::object()}}))
          .typed(delta(0, {{"type", "input_json_delta"}, {"partial_json", ""}}))
          .typed(delta(0, {{"type", "input_json_delta"}, {"partial_json", "{\"pa"}}))
          .typed(delta(0, {{"type", "input_json_delta"}, {"partial_json", R"(th": "a.txt"})"}}))
          .typed(block_stop(0))
          .typed(message_delta("tool_use", 9))
          .typed(message_stop())
          .str());
  auto starts = decoded.all<llm::ToolCallStart>();
  REQUIRE(starts.size() == 1);
  CHECK(starts[0].id == "toolu_1");
  CHECK(decoded.all<llm::ToolCallDelta>().size() == 2);
  auto complete = decoded.all<llm::ToolCallComplete>();
  REQUIRE(complete.size() == 1);
  CHECK(json::parse(complete[0].call.arguments) == json{{"path", "a.txt"}});
  CHECK(decoded.response.stop.reason == llm::StopReason::tool_use);
}

namespace {

// A write call whose input has started streaming and is still open.
SseBody open_write_call() {
  return SseBody{}
      .typed(message_start())
      .typed(block_start(
          0,
          {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "write"}, {"input", json::object()}}))
      .typed(delta(0, {{"type", "input_json_delta"}, {"partial_json", R"({"content": "lo)"}}));
}

}  // namespace

TEST_CASE("anthropic tool call still open at max_tokens is not executable", "[anthropic]") {
  auto decoded = decode(
      anthropic,
      open_write_call().typed(message_delta("max_tokens", 4096)).typed(message_stop()).str());
  CHECK(decoded.all<llm::ToolCallComplete>().empty());
  for (const auto& block : decoded.response.message.content) {
    CHECK_FALSE(std::holds_alternative<llm::ToolCallBlock>(block));
  }
  CHECK(decoded.response.stop.reason == llm::StopReason::max_tokens);
  CHECK_FALSE(decoded.response.error.has_value());
  // Reported as cut, with what had arrived, rather than dropped.
  REQUIRE(decoded.response.cut_calls.size() == 1);
  CHECK(decoded.response.cut_calls[0].id == "toolu_1");
  CHECK(decoded.response.cut_calls[0].name == "write");
  CHECK(decoded.response.cut_calls[0].arguments == R"({"content": "lo)");
}

TEST_CASE("anthropic tool call left open by a broken stream is neither run nor reported cut",
          "[anthropic]") {
  auto decoded = decode(anthropic, open_write_call().str());
  CHECK(decoded.response.error.has_value());
  CHECK(decoded.response.cut_calls.empty());
}

TEST_CASE("anthropic overloaded error event ends the stream with a retryable error",
          "[anthropic]") {
  auto decoded = decode(
      anthropic, SseBody{}
                     .typed(message_start())
                     .typed(block_start(0, {{"type", "text"}, {"text", ""}}))
                     .typed(delta(0, {{"type", "text_delta"}, {"text", "partial"}}))
                     .typed({{"type", "error"},
                             {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}})
                     .str());
  REQUIRE(decoded.response.error.has_value());
  CHECK(decoded.response.error->kind == llm::ErrorKind::overloaded);
  CHECK(decoded.response.error->retryable);
  CHECK(decoded.response.error->message == "Overloaded");
  CHECK(decoded.response.stop.reason == llm::StopReason::error);
  CHECK(decoded.all<llm::StreamError>().size() == 1);
}

TEST_CASE("anthropic stream without message_stop is a retryable protocol error", "[anthropic]") {
  auto decoded = decode(
      anthropic,
      SseBody{}
          .typed(message_start())
          .typed(block_start(
              0, {{"type", "tool_use"}, {"id", "t"}, {"name", "n"}, {"input", json::object()}}))
          .typed(delta(0, {{"type", "input_json_delta"}, {"partial_json", "{}"}}))
          .typed(block_stop(0))
          .typed(message_delta("tool_use", 3))
          .str());
  REQUIRE(decoded.response.error.has_value());
  CHECK(decoded.response.error->kind == llm::ErrorKind::protocol);
  CHECK(decoded.response.error->retryable);
  CHECK(decoded.response.message.content.empty());  // the call is not handed on
}

TEST_CASE("anthropic message_start with a new id starts over instead of gluing", "[anthropic]") {
  auto decoded =
      decode(anthropic, SseBody{}
                            .typed(message_start("msg_a"))
                            .typed(block_start(0, {{"type", "text"}, {"text", ""}}))
                            .typed(delta(0, {{"type", "text_delta"}, {"text", "first"}}))
                            .typed(message_start("msg_b"))
                            .typed(block_start(0, {{"type", "text"}, {"text", ""}}))
                            .typed(delta(0, {{"type", "text_delta"}, {"text", "second"}}))
                            .typed(block_stop(0))
                            .typed(message_delta("end_turn", 2))
                            .typed(message_stop())
                            .str());
  REQUIRE(decoded.response.message.content.size() == 1);
  CHECK(std::get<llm::TextBlock>(decoded.response.message.content[0]).text == "second");
}

TEST_CASE("anthropic unknown events, blocks and deltas are skipped", "[anthropic]") {
  auto decoded = decode(anthropic, SseBody{}
                                       .typed(message_start())
                                       .typed({{"type", "brand_new_event"}, {"x", 1}})
                                       .typed(block_start(0, {{"type", "hologram"}, {"data", 1}}))
                                       .typed(delta(0, {{"type", "hologram_delta"}}))
                                       .typed(block_stop(0))
                                       .raw("event: content_block_delta\ndata: {not json\n\n")
                                       .typed(block_start(1, {{"type", "text"}, {"text", "ok"}}))
                                       .typed(block_stop(1))
                                       .typed(message_delta("end_turn", 2))
                                       .typed(message_stop())
                                       .str());
  CHECK_FALSE(decoded.response.error.has_value());
  REQUIRE(decoded.response.message.content.size() == 1);
  CHECK(std::get<llm::TextBlock>(decoded.response.message.content[0]).text == "ok");
}
