// The conversation reducer on hand-written events (the shapes of
// docs/api.md), as the web UI's reducer tests do for its TypeScript twin.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/desktop/conversation_model.hpp"

using ava::desktop::ConversationModel;
using ava::desktop::ViewItem;
using nlohmann::json;

namespace {

json tool_call_turn(int first_seq) {
  return json::array(
      {{{"type", "input"},
        {"seq", first_seq},
        {"input_id", "in-1"},
        {"kind", "followup"},
        {"text", "bash: echo hi"}},
       {{"type", "turn_start"}, {"seq", first_seq + 1}, {"turn_id", "t1"}},
       {{"type", "input_claimed"}, {"seq", first_seq + 2}, {"input_ids", {"in-1"}}},
       {{"type", "assistant"},
        {"seq", first_seq + 3},
        {"turn_id", "t1"},
        {"step", 1},
        {"content",
         {{{"type", "thinking"}, {"text", "let me run it"}},
          {{"type", "text"}, {"text", "Running it."}},
          {{"type", "tool_call"},
           {"id", "call-1"},
           {"name", "bash"},
           {"arguments", R"({"command":"echo hi"})"}}}}},
       {{"type", "tool_result"},
        {"seq", first_seq + 4},
        {"turn_id", "t1"},
        {"call_id", "call-1"},
        {"tool_name", "bash"},
        {"status", "ok"},
        {"content", {{{"type", "text"}, {"text", "hi\n"}}}},
        {"details", {{"exit_code", 0}, {"duration_ms", 12}}}},
       {{"type", "usage"},
        {"seq", first_seq + 5},
        {"usage", {{"input_tokens", 20}, {"output_tokens", 10}}}},
       {{"type", "assistant"},
        {"seq", first_seq + 6},
        {"turn_id", "t1"},
        {"step", 2},
        {"content", {{{"type", "text"}, {"text", "done: **hi**"}}}}},
       {{"type", "turn_end"}, {"seq", first_seq + 7}, {"turn_id", "t1"}, {"reason", "completed"}}});
}

void apply_all(ConversationModel& model, const json& events) {
  for (const auto& event : events) model.apply_event(event);
  model.commit();
}

std::vector<ViewItem::Kind> kinds(const ConversationModel& model) {
  std::vector<ViewItem::Kind> out;
  for (const auto& item : model.items()) out.push_back(item.kind);
  return out;
}

}  // namespace

TEST_CASE("a tool call turn becomes user, thinking, text, tool card, answer", "[desktop]") {
  ConversationModel model;
  model.clear("c1");
  apply_all(model, tool_call_turn(2));
  using K = ViewItem::Kind;
  CHECK(kinds(model) == std::vector{K::user, K::thinking, K::assistant, K::tool, K::assistant});
  CHECK(model.rowCount() == 5);
  const auto& tool = model.items()[3];
  CHECK(tool.title == "bash");
  CHECK(tool.command == "echo hi");
  CHECK(tool.status == "ok");
  CHECK(tool.output == "hi\n");
  CHECK(tool.exit_info == "exit 0 · 12 ms");
  CHECK_FALSE(tool.exit_bad);
  CHECK(model.items()[0].claimed);
  CHECK(model.inputTokens() == 20);
  CHECK(model.outputTokens() == 10);
  CHECK_FALSE(model.turnOpen());
  CHECK(model.lastSeq() == 9);
  CHECK(model.data(model.index(3), ConversationModel::KindRole).toString() == "tool");
  CHECK(model.data(model.index(4), ConversationModel::TextRole).toString() == "done: **hi**");
}

TEST_CASE("events at or below the cursor are ignored", "[desktop]") {
  ConversationModel model;
  model.clear("c1");
  const auto events = tool_call_turn(2);
  apply_all(model, events);
  const auto rows = model.rowCount();
  for (const auto& event : events) CHECK_FALSE(model.apply_event(event));
  model.commit();
  CHECK(model.rowCount() == rows);
  CHECK(model.applied() == std::vector<std::int64_t>{2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("an edit result carries its diff, a failed bash is marked bad", "[desktop]") {
  ConversationModel model;
  model.clear("c1");
  apply_all(model,
            json::array({{{"type", "turn_start"}, {"seq", 1}, {"turn_id", "t"}},
                         {{"type", "assistant"},
                          {"seq", 2},
                          {"turn_id", "t"},
                          {"step", 1},
                          {"content",
                           {{{"type", "tool_call"},
                             {"id", "e"},
                             {"name", "edit"},
                             {"arguments", R"({"path":"a.txt","edits":[]})"}},
                            {{"type", "tool_call"},
                             {"id", "b"},
                             {"name", "bash"},
                             {"arguments", R"({"command":"false"})"}}}}},
                         {{"type", "tool_result"},
                          {"seq", 3},
                          {"call_id", "e"},
                          {"status", "ok"},
                          {"details", {{"path", "/p/a.txt"}, {"diff", "--- a\n+++ b\n-x\n+y\n"}}}},
                         {{"type", "tool_result"},
                          {"seq", 4},
                          {"call_id", "b"},
                          {"status", "error"},
                          {"details", {{"exit_code", 1}}}}}));
  REQUIRE(model.items().size() == 2);
  CHECK(model.items()[0].title == "edit /p/a.txt");
  CHECK(model.items()[0].diff == "--- a\n+++ b\n-x\n+y\n");
  CHECK(model.items()[1].exit_bad);
  CHECK(model.items()[1].status == "error");
  CHECK(model.turnOpen());
}

TEST_CASE("an aborted turn closes its open calls and says so", "[desktop]") {
  ConversationModel model;
  model.clear("c1");
  apply_all(model,
            json::array(
                {{{"type", "turn_start"}, {"seq", 1}, {"turn_id", "t"}},
                 {{"type", "assistant"},
                  {"seq", 2},
                  {"turn_id", "t"},
                  {"step", 1},
                  {"content",
                   {{{"type", "tool_call"}, {"id", "x"}, {"name", "bash"}, {"arguments", "{}"}}}}},
                 {{"type", "turn_end"}, {"seq", 3}, {"turn_id", "t"}, {"reason", "aborted"}}}));
  REQUIRE(model.items().size() == 2);
  CHECK(model.items()[0].status == "interrupted");
  CHECK(model.items()[1].text == "Turn aborted");
  CHECK(model.items()[1].level == "interrupted");
}

TEST_CASE("live text streams until its step's durable event lands", "[desktop]") {
  ConversationModel model;
  model.clear("c1");
  apply_all(model, json::array({{{"type", "turn_start"}, {"seq", 1}, {"turn_id", "t"}}}));
  const json delta{{"conversationId", "c1"}, {"turnId", "t"}, {"step", 1}, {"text", "Hel"}};
  model.apply_status("delta", delta);
  model.apply_status("delta",
                     {{"conversationId", "c1"}, {"turnId", "t"}, {"step", 1}, {"text", "lo"}});
  model.apply_status("delta",
                     {{"conversationId", "other"}, {"turnId", "t"}, {"step", 1}, {"text", "x"}});
  CHECK(model.liveText() == "Hello");
  model.apply_status("tool", {{"conversationId", "c1"},
                              {"toolName", "bash"},
                              {"label", "Running bash: ls"},
                              {"finished", false}});
  CHECK(model.activity() == "Running bash: ls");
  apply_all(model, json::array({{{"type", "assistant"},
                                 {"seq", 2},
                                 {"turn_id", "t"},
                                 {"step", 1},
                                 {"content", {{{"type", "text"}, {"text", "Hello"}}}}}}));
  CHECK(model.liveText().isEmpty());
  // A late delta of the finished step does not come back.
  model.apply_status("delta", delta);
  CHECK(model.liveText().isEmpty());
  model.apply_status("state", {{"conversationId", "c1"}, {"state", "idle"}});
  CHECK(model.driverState() == "idle");
  CHECK(model.activity().isEmpty());
}

TEST_CASE("an approval makes its call wait until it is decided, and a blocking hook is noted",
          "[desktop]") {
  ConversationModel model;
  model.clear("c1");
  auto events = tool_call_turn(2);
  // The call waits before its result: drop the result and the answer.
  json waiting = json::array();
  for (const auto& event : events) {
    if (event["type"] == "tool_result") break;
    waiting.push_back(event);
  }
  waiting.push_back({{"type", "approval_requested"},
                     {"seq", 6},
                     {"approval_id", "ap-1"},
                     {"call_id", "call-1"},
                     {"tool_name", "bash"},
                     {"arguments", {{"command", "echo hi"}}},
                     {"reason", "execute calls need approval in ask mode"},
                     {"suggested_rules", {"bash(echo hi:*)"}}});
  apply_all(model, waiting);
  const std::string call_id = "call-1";
  CHECK(model.waitingApprovals() == 1);
  CHECK(model.items()[3].status == "waiting");
  const auto pending = model.pendingApproval();
  CHECK(pending.value("approvalId").toString() == "ap-1");
  CHECK(pending.value("preview").toString() == "echo hi");
  CHECK(pending.value("suggestedRules").toStringList() == QStringList{"bash(echo hi:*)"});

  apply_all(model, json::array({{{"type", "approval_decided"},
                                 {"seq", 7},
                                 {"approval_id", "ap-1"},
                                 {"call_id", call_id},
                                 {"decision", "allow"}},
                                {{"type", "hook"},
                                 {"seq", 8},
                                 {"hook", "PostToolUse"},
                                 {"command", "./lint"},
                                 {"outcome", "block"},
                                 {"reason", "fix the style"}}}));
  CHECK(model.waitingApprovals() == 0);
  CHECK(model.pendingApproval().isEmpty());
  CHECK(model.items()[3].status == "running");
  CHECK(model.items().back().text == "Hook PostToolUse (./lint) block: fix the style");
}

TEST_CASE("input a UserPromptSubmit hook blocked says so and why", "[desktop]") {
  ConversationModel model;
  apply_all(model, json::array({{{"type", "input"},
                                 {"seq", 1},
                                 {"input_id", "in-1"},
                                 {"kind", "followup"},
                                 {"text", "the secret is 42"}},
                                {{"type", "input_blocked"},
                                 {"seq", 2},
                                 {"input_id", "in-1"},
                                 {"hook", "UserPromptSubmit"},
                                 {"reason", "no secrets"}},
                                {{"type", "input_blocked"},
                                 {"seq", 3},
                                 {"input_id", "nobody"},
                                 {"hook", "UserPromptSubmit"}}}));
  REQUIRE(model.items().size() == 1);
  CHECK(model.items()[0].blocked == "no secrets");
  CHECK_FALSE(model.items()[0].claimed);
  const auto index = model.index(0);
  CHECK(model.data(index, ConversationModel::BlockedRole).toString() == "no secrets");
}

TEST_CASE("a built-in's answer is a command row, the goal and a plan awaiting approval follow",
          "[desktop]") {
  ConversationModel model;
  apply_all(model, json::array({{{"type", "goal_set"}, {"seq", 1}, {"goal", "ship it"}},
                                {{"type", "command_output"},
                                 {"seq", 2},
                                 {"input_id", "i"},
                                 {"text", "/goal ship it"},
                                 {"command", "goal"},
                                 {"output", "Goal set: ship it"}},
                                {{"type", "input"},
                                 {"seq", 3},
                                 {"input_id", "in-1"},
                                 {"kind", "followup"},
                                 {"text", "/plan tidy"},
                                 {"command", "plan"},
                                 {"plan", true}},
                                {{"type", "turn_start"}, {"seq", 4}, {"turn_id", "t1"}},
                                {{"type", "input_claimed"},
                                 {"seq", 5},
                                 {"turn_id", "t1"},
                                 {"step", 1},
                                 {"input_ids", json::array({"in-1"})}}}));
  CHECK(model.goal() == "ship it");
  REQUIRE(model.items().size() == 2);
  CHECK(model.items()[0].kind == ViewItem::Kind::command);
  CHECK(model.items()[0].text == "/goal ship it");
  CHECK(model.items()[0].output == "Goal set: ship it");
  CHECK(model.data(model.index(0), ConversationModel::KindRole).toString() == "command");
  CHECK(model.items()[1].plan);
  CHECK_FALSE(model.planAwaitingApproval());  // the turn still runs

  apply_all(model,
            json::array(
                {{{"type", "assistant"},
                  {"seq", 6},
                  {"turn_id", "t1"},
                  {"step", 1},
                  {"content", {{{"type", "text"}, {"text", "1. tidy"}}}}},
                 {{"type", "turn_end"}, {"seq", 7}, {"turn_id", "t1"}, {"reason", "completed"}}}));
  CHECK(model.planAwaitingApproval());
  apply_all(model, json::array({{{"type", "input"},
                                 {"seq", 8},
                                 {"input_id", "in-2"},
                                 {"kind", "followup"},
                                 {"text", "go"}}}));
  CHECK_FALSE(model.planAwaitingApproval());
  apply_all(model, json::array({{{"type", "goal_set"}, {"seq", 9}, {"goal", ""}}}));
  CHECK(model.goal().isEmpty());
}
