// Session events and live deltas as ACP updates: text sent once, tool calls
// with kind, locations and diff content, results completed or failed.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/acp/updates.hpp"

using nlohmann::json;
using namespace ava;

namespace {

session::Event message(std::vector<content::ContentBlock> blocks, int step = 1) {
  return {.seq = 5,
          .ts_ms = 0,
          .body = session::AssistantMessage{.turn_id = "t1", .step = step, .content = blocks},
          .extra = json::object()};
}

agent::LiveEvent delta(std::string text, int step = 1) {
  return agent::StreamProgress{.turn_id = "t1", .step = step, .event = llm::TextDelta{text}};
}

std::string texts(const std::vector<json>& updates) {
  std::string out;
  for (const auto& update : updates) {
    if (update["sessionUpdate"] == "agent_message_chunk") out += update["content"]["text"];
  }
  return out;
}

}  // namespace

TEST_CASE("streamed text is sent once, whichever comes first", "[acp]") {
  acp::UpdateMapper mapper("/p");
  CHECK(texts(mapper.on_live(delta("Hel"))) == "Hel");
  CHECK(texts(mapper.on_live(delta("lo"))) == "lo");
  // The whole message adds only what the deltas did not bring.
  CHECK(texts(mapper.on_event(message({content::TextBlock{"Hello world"}}), false)) == " world");
  // A late delta of a step already complete is dropped.
  CHECK(mapper.on_live(delta("late")).empty());
  // A final text that replaced the deltas is not sent a second time.
  CHECK(texts(mapper.on_live(delta("draft", 2))) == "draft");
  CHECK(texts(mapper.on_event(message({content::TextBlock{"final"}}, 2), false)).empty());
  // Replaying a log sends every message whole.
  acp::UpdateMapper replay("/p");
  CHECK(texts(replay.on_event(message({content::TextBlock{"Hello"}}), true)) == "Hello");
}

TEST_CASE("tool calls carry their kind, locations and the change as a diff", "[acp]") {
  acp::UpdateMapper mapper("/p");
  const auto updates = mapper.on_event(
      message({content::ToolCallBlock{
                   "c1", "edit", R"({"path":"src/a.cpp","edits":[{"oldText":"x","newText":"y"}]})"},
               content::ToolCallBlock{"c2", "bash", R"({"command":"make test\nmore"})"},
               content::ToolCallBlock{"c3", "mcp__fs__read", "not json"}}),
      false);
  REQUIRE(updates.size() == 3);
  CHECK(updates[0]["kind"] == "edit");
  CHECK(updates[0]["status"] == "pending");
  CHECK(updates[0]["locations"] == json::array({{{"path", "/p/src/a.cpp"}}}));
  CHECK(updates[0]["content"] ==
        json::array(
            {{{"type", "diff"}, {"path", "/p/src/a.cpp"}, {"oldText", "x"}, {"newText", "y"}}}));
  CHECK(updates[1]["kind"] == "execute");
  CHECK(updates[1]["title"] == "bash: make test");
  CHECK(updates[2]["kind"] == "other");
  CHECK(updates[2]["rawInput"] == json::object());

  const auto written =
      acp::tool_call_update("c4", "write", {{"path", "/abs/n.txt"}, {"content", "hi"}}, "/p");
  CHECK(written["content"][0]["oldText"].is_null());
  CHECK(written["content"][0]["newText"] == "hi");
  CHECK(acp::tool_kind("read") == "read");
  CHECK(acp::tool_kind("web_fetch") == "fetch");
}

TEST_CASE("tool results complete or fail their call", "[acp]") {
  acp::UpdateMapper mapper("/p");
  session::ToolResult result{.turn_id = "t1",
                             .step = 1,
                             .call_id = "c1",
                             .tool_name = "bash",
                             .status = session::ToolStatus::interrupted,
                             .content = {content::TextBlock{"stopped"}},
                             .details = {{"exit_code", -1}}};
  const auto updates =
      mapper.on_event({.seq = 6, .ts_ms = 0, .body = result, .extra = json::object()}, false);
  REQUIRE(updates.size() == 1);
  CHECK(updates[0]["sessionUpdate"] == "tool_call_update");
  CHECK(updates[0]["status"] == "failed");
  CHECK(updates[0]["content"][0]["content"]["text"] == "stopped");
  CHECK(updates[0]["rawOutput"]["exit_code"] == -1);
}

TEST_CASE("a command run in the editor's terminal keeps the terminal as its content", "[acp]") {
  acp::UpdateMapper mapper("/p");
  session::Event result{
      .seq = 9,
      .ts_ms = 0,
      .body = session::ToolResult{.turn_id = "t1",
                                  .step = 1,
                                  .call_id = "c1",
                                  .tool_name = "bash",
                                  .status = session::ToolStatus::ok,
                                  .content = {content::TextBlock{"hi\n[exit code 0]"}},
                                  .details = {{"terminal_id", "term-1"}, {"exit_code", 0}}},
      .extra = json::object()};
  auto live = mapper.on_event(result, false);
  REQUIRE(live.size() == 1);
  CHECK(live[0]["status"] == "completed");
  CHECK_FALSE(live[0].contains("content"));  // the embedded terminal stays
  // Replayed, the terminal is gone: the output is the text.
  auto replayed = acp::UpdateMapper("/p").on_event(result, true);
  CHECK(replayed[0]["content"][0]["content"]["text"] == "hi\n[exit code 0]");
}
