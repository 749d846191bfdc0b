#include <catch2/catch.hpp>

#include "ava/llm/decoder.hpp"
#include "llm/stream_builder.hpp"

using ava::test::decode;
using ava::test::SseBody;
using nlohmann::json;
namespace llm = ava::llm;

namespace {

constexpr auto chat = llm::WireApi::openai_chat;

json chunk(const json& delta, const json& finish_reason = nullptr) {
  return {{"object", "chat.completion.chunk"},
          {"choices",
           json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish_reason}}})}};
}
json call_fragment(int index, const json& fields) {
  json call = fields;
  call["index"] = index;
  return {{"tool_calls", json::array({call})}};
}

}  // namespace

TEST_CASE("chat tool calls accumulate by index and complete in index order", "[chat]") {
  auto decoded = decode(
      chat,
      SseBody{}
          .data(chunk({{"role", "assistant"}, {"content", nullptr}}))
          .data(chunk(call_fragment(3, {{"id", "call_b"},
                                        {"type", "function"},
                                        {"function", {{"name", "second"}, {"arguments", ""}}}})))
          .data(chunk(call_fragment(3, {{"function", {{"arguments", "{\"n\":"}}}})))
          .data(chunk(call_fragment(
              1,
              {{"id", "call_a"}, {"function", {{"name", "first"}, {"arguments", "{\"m\":1}"}}}})))
          .data(chunk(call_fragment(3, {{"function", {{"arguments", "2}"}}}})))
          .data(chunk(json::object(), "tool_calls"))
          .data({{"choices", json::array()},
                 {"usage",
                  {{"prompt_tokens", 100},
                   {"completion_tokens", 7},
                   {"prompt_tokens_details", {{"cached_tokens", 60}}}}}})
          .raw("data: [DONE]\n\n")
          .str());
  auto complete = decoded.all<llm::ToolCallComplete>();
  REQUIRE(complete.size() == 2);
  CHECK(complete[0].call.id == "call_a");
  CHECK(complete[0].call.arguments == "{\"m\":1}");
  CHECK(complete[1].call.id == "call_b");
  CHECK(complete[1].call.arguments == "{\"n\":2}");
  CHECK(decoded.response.stop.reason == llm::StopReason::tool_use);
  CHECK(decoded.response.usage.input_tokens == 40);
  CHECK(decoded.response.usage.cache_read_tokens == 60);
  CHECK(decoded.response.usage.output_tokens == 7);
}

TEST_CASE("chat tool calls are released only when the response ends", "[chat]") {
  auto decoded =
      decode(chat, SseBody{}
                       .data(chunk(call_fragment(
                           0, {{"id", "c"}, {"function", {{"name", "f"}, {"arguments", "{}"}}}})))
                       .str());
  CHECK(decoded.all<llm::ToolCallComplete>().empty());
  REQUIRE(decoded.response.error.has_value());
  CHECK(decoded.response.error->kind == llm::ErrorKind::protocol);
}

TEST_CASE("chat an error event without DONE is a typed error", "[chat]") {
  auto decoded =
      decode(chat, SseBody{}
                       .data(chunk({{"content", "Hel"}}))
                       .raw("event: error\ndata: {\"error\":{\"message\":\"Rate limit "
                            "reached\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}\n\n")
                       .str());
  REQUIRE(decoded.response.error.has_value());
  CHECK(decoded.response.error->kind == llm::ErrorKind::rate_limited);
  CHECK(decoded.response.error->retryable);
  CHECK(decoded.response.error->message == "Rate limit reached");
  CHECK(decoded.response.stop.reason == llm::StopReason::error);
}

TEST_CASE("chat length finish makes pending tool calls not executable", "[chat]") {
  auto decoded = decode(
      chat, SseBody{}
                .data(chunk(call_fragment(
                    0, {{"id", "c"}, {"function", {{"name", "f"}, {"arguments", "{\"a\":"}}}})))
                .data(chunk(json::object(), "length"))
                .raw("data: [DONE]\n\n")
                .str());
  CHECK(decoded.all<llm::ToolCallComplete>().empty());
  CHECK(decoded.response.stop.reason == llm::StopReason::max_tokens);
  CHECK_FALSE(decoded.response.error.has_value());
  REQUIRE(decoded.response.cut_calls.size() == 1);
  CHECK(decoded.response.cut_calls[0].id == "c");
  CHECK(decoded.response.cut_calls[0].name == "f");
  CHECK(decoded.response.cut_calls[0].arguments == "{\"a\":");
}

TEST_CASE("chat reasoning_content streams as thinking separate from content", "[chat]") {
  auto decoded = decode(chat, SseBody{}
                                  .data(chunk({{"reasoning_content", "hmm"}}))
                                  .data(chunk({{"content", "Hi"}}))
                                  .data(chunk(json::object(), "stop"))
                                  .raw("data: [DONE]\n\n")
                                  .str());
  REQUIRE(decoded.response.message.content.size() == 2);
  CHECK(std::get<llm::ThinkingBlock>(decoded.response.message.content[0]).text == "hmm");
  CHECK(std::get<llm::TextBlock>(decoded.response.message.content[1]).text == "Hi");
  CHECK(decoded.response.stop.reason == llm::StopReason::end_turn);
}
