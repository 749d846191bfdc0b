#include <catch2/catch.hpp>

#include "ava/llm/decoder.hpp"
#include "llm/stream_builder.hpp"

using ava::test::decode;
using ava::test::SseBody;
using nlohmann::json;
namespace llm = ava::llm;

namespace {

constexpr auto responses = llm::WireApi::openai_responses;

json call_added(int index, const std::string& id, const std::string& call_id,
                const std::string& name) {
  return {{"type", "response.output_item.added"},
          {"output_index", index},
          {"item",
           {{"type", "function_call"},
            {"id", id},
            {"call_id", call_id},
            {"name", name},
            {"arguments", ""}}}};
}
json args_delta(int index, const std::string& id, const std::string& fragment) {
  return {{"type", "response.function_call_arguments.delta"},
          {"output_index", index},
          {"item_id", id},
          {"delta", fragment}};
}
json call_done(int index, const std::string& id, const std::string& call_id,
               const std::string& name, const std::string& arguments) {
  return {{"type", "response.output_item.done"},
          {"output_index", index},
          {"item",
           {{"type", "function_call"},
            {"id", id},
            {"call_id", call_id},
            {"name", name},
            {"arguments", arguments},
            {"status", "completed"}}}};
}
json usage() {
  return {{"input_tokens", 120},
          {"input_tokens_details", {{"cached_tokens", 100}}},
          {"output_tokens", 30},
          {"output_tokens_details", {{"reasoning_tokens", 12}}}};
}
json terminal(const std::string& type, const std::string& status,
              const json& extra = json::object()) {
  json response = {{"id", "resp_1"}, {"status", status}, {"usage", usage()}};
  response.update(extra);
  return {{"type", type}, {"response", response}};
}

// Two calls whose argument deltas interleave, as a parallel response may.
SseBody two_calls() {
  SseBody body;
  body.typed({{"type", "response.created"},
              {"response", {{"id", "resp_1"}, {"status", "in_progress"}}}})
      .typed(call_added(0, "fc_1", "call_1", "read"))
      .typed(call_added(1, "fc_2", "call_2", "grep"))
      .typed(args_delta(1, "fc_2", "{\"pattern\":"))
      .typed(args_delta(0, "fc_1", R"({"path":"a"})"))
      .typed(args_delta(1, "fc_2", "\"x\"}"))
      .typed(call_done(1, "fc_2", "call_2", "grep", R"({"pattern":"x"})"))
      .typed(call_done(0, "fc_1", "call_1", "read", R"({"path":"a"})"));
  return body;
}

}  // namespace

TEST_CASE("responses function calls are released complete in output order at completion",
          "[responses]") {
  auto decoded =
      decode(responses, two_calls().typed(terminal("response.completed", "completed")).str());
  auto complete = decoded.all<llm::ToolCallComplete>();
  REQUIRE(complete.size() == 2);
  CHECK(complete[0].call.id == "call_1");  // call_id, not the item id
  CHECK(complete[0].call.name == "read");
  CHECK(complete[1].call.id == "call_2");
  CHECK(complete[1].call.arguments == R"({"pattern":"x"})");
  // Nothing was released before the terminal event: completes follow every delta.
  std::size_t last_delta = 0;
  std::size_t first_complete = decoded.events.size();
  for (std::size_t i = 0; i < decoded.events.size(); ++i) {
    if (std::holds_alternative<llm::ToolCallDelta>(decoded.events[i])) last_delta = i;
    if (std::holds_alternative<llm::ToolCallComplete>(decoded.events[i]) &&
        first_complete == decoded.events.size()) {
      first_complete = i;
    }
  }
  CHECK(first_complete > last_delta);
  CHECK(decoded.response.stop.reason == llm::StopReason::tool_use);
  CHECK(decoded.response.usage.input_tokens == 20);
  CHECK(decoded.response.usage.cache_read_tokens == 100);
  CHECK(decoded.response.usage.reasoning_tokens == 12);
}

TEST_CASE("responses failed response executes no call and still reports its usage", "[responses]") {
  auto decoded = decode(
      responses, two_calls()
                     .typed({{"type", "error"}, {"code", "server_error"}, {"message", "boom"}})
                     .typed(terminal("response.failed", "failed",
                                     {{"error", {{"code", "server_error"}, {"message", "boom"}}}}))
                     .str());
  CHECK(decoded.all<llm::ToolCallComplete>().empty());
  REQUIRE(decoded.response.error.has_value());
  CHECK(decoded.response.error->kind == llm::ErrorKind::server);
  CHECK(decoded.response.error->message == "boom");
  CHECK(decoded.response.usage.output_tokens == 30);  // billed even though it failed
  auto usage_events = decoded.all<llm::UsageReport>();
  REQUIRE(usage_events.size() == 1);
  CHECK(usage_events[0].usage.output_tokens == 30);
  for (const auto& block : decoded.response.message.content) {
    CHECK_FALSE(std::holds_alternative<llm::ToolCallBlock>(block));
  }
}

TEST_CASE("responses incomplete response is cut off, not an error, and executes no call",
          "[responses]") {
  auto decoded = decode(
      responses, two_calls()
                     .typed(terminal("response.incomplete", "incomplete",
                                     {{"incomplete_details", {{"reason", "max_output_tokens"}}}}))
                     .str());
  CHECK(decoded.all<llm::ToolCallComplete>().empty());
  CHECK_FALSE(decoded.response.error.has_value());
  CHECK(decoded.response.stop.reason == llm::StopReason::max_tokens);
  CHECK(decoded.response.stop.provider_reason == "max_output_tokens");
  CHECK(decoded.response.usage.output_tokens == 30);
  // Neither call ran; both are reported cut.
  CHECK(decoded.response.cut_calls.size() == 2);
}

TEST_CASE("responses malformed arguments in one call execute none of the calls", "[responses]") {
  SseBody body;
  body.typed(call_added(0, "fc_1", "call_1", "read"))
      .typed(call_done(0, "fc_1", "call_1", "read", R"({"path":"a"})"))
      .typed(call_added(1, "fc_2", "call_2", "grep"))
      .typed(call_done(1, "fc_2", "call_2", "grep", "{\"pattern\": tru"))
      .typed(terminal("response.completed", "completed"));
  auto decoded = decode(responses, body.str());
  CHECK(decoded.all<llm::ToolCallComplete>().empty());
  REQUIRE(decoded.response.error.has_value());
  CHECK(decoded.response.error->kind == llm::ErrorKind::protocol);
  CHECK(decoded.response.usage.output_tokens == 30);
}

TEST_CASE("responses stream closed before response.completed is an error even with finished items",
          "[responses]") {
  auto decoded = decode(responses, two_calls().str());
  CHECK(decoded.all<llm::ToolCallComplete>().empty());
  REQUIRE(decoded.response.error.has_value());
  CHECK(decoded.response.error->kind == llm::ErrorKind::protocol);
  CHECK(decoded.response.error->message.find("response.completed") != std::string::npos);
}

TEST_CASE("responses reasoning keeps summary, encrypted content and item id", "[responses]") {
  SseBody body;
  body.typed({{"type", "response.output_item.added"},
              {"output_index", 0},
              {"item", {{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()}}}})
      .typed({{"type", "response.reasoning_summary_text.delta"},
              {"output_index", 0},
              {"item_id", "rs_1"},
              {"summary_index", 0},
              {"delta", "Plan"}})
      .typed({{"type", "response.output_item.done"},
              {"output_index", 0},
              {"item",
               {{"type", "reasoning"},
                {"id", "rs_1"},
                {"encrypted_content", "gAAAA=="},
                {"summary", json::array({{{"type", "summary_text"}, {"text", "Plan"}}})}}}})
      .typed({{"type", "response.output_item.added"},
              {"output_index", 1},
              {"item", {{"type", "message"}, {"id", "msg_1"}, {"content", json::array()}}}})
      .typed({{"type", "response.output_text.delta"},
              {"output_index", 1},
              {"item_id", "msg_1"},
              {"content_index", 0},
              {"delta", "Done"}})
      .typed(terminal("response.completed", "completed"))
      .raw("data: [DONE]\n\n");
  auto decoded = decode(responses, body.str());
  CHECK_FALSE(decoded.response.error.has_value());
  const auto& content = decoded.response.message.content;
  REQUIRE(content.size() == 2);
  auto thinking = std::get<llm::ThinkingBlock>(content[0]);
  CHECK(thinking.text == "Plan");
  CHECK(thinking.encrypted_content == "gAAAA==");
  CHECK(thinking.provider_id == "rs_1");
  CHECK(std::get<llm::TextBlock>(content[1]).text ==
        "Done");  // from deltas: no output_item.done came
}

namespace {

// A message whose text deltas are followed by a done event carrying
// `final_text` (output_text.done, or content_part.done), and no
// output_item.done, as some proxies stream it.
std::string message_with_done(const std::string& done_type, const std::string& final_text) {
  SseBody body;
  body.typed({{"type", "response.output_item.added"},
              {"output_index", 0},
              {"item", {{"type", "message"}, {"id", "msg_1"}, {"content", json::array()}}}});
  for (const char* delta : {"Hel", "lo wrld"}) {
    body.typed({{"type", "response.output_text.delta"},
                {"output_index", 0},
                {"item_id", "msg_1"},
                {"content_index", 0},
                {"delta", delta}});
  }
  json done = {
      {"type", done_type}, {"output_index", 0}, {"item_id", "msg_1"}, {"content_index", 0}};
  if (done_type == "response.output_text.done") {
    done["text"] = final_text;
  } else {
    done["part"] = {{"type", "output_text"}, {"text", final_text}};
  }
  body.typed(done).typed(terminal("response.completed", "completed"));
  return body.str();
}

}  // namespace

TEST_CASE("responses final text that differs from its deltas is kept once, final", "[responses]") {
  for (const std::string type : {"response.output_text.done", "response.content_part.done"}) {
    auto decoded = decode(responses, message_with_done(type, "Hello world"));
    CHECK_FALSE(decoded.response.error.has_value());
    const auto& content = decoded.response.message.content;
    REQUIRE(content.size() == 1);
    CHECK(std::get<llm::TextBlock>(content[0]).text == "Hello world");
  }
  // The same text again changes nothing.
  auto same = decode(responses, message_with_done("response.output_text.done", "Hello wrld"));
  CHECK(std::get<llm::TextBlock>(same.response.message.content.at(0)).text == "Hello wrld");
}
