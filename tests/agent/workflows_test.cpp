// Built-in slash commands, goals, /plan turns, memory notes and /compact
// through real turns against the scripted provider (docs/workflows.md).
#include <catch2/catch.hpp>

#include "agent_test_util.hpp"
#include "ava/session/context.hpp"

using namespace ava;
using test::events_of;
namespace fs = std::filesystem;

namespace {

std::string text_of(const content::Message& message) { return test::text_in(message.content); }

std::vector<std::string> tool_names(const llm::Request& request) {
  std::vector<std::string> names;
  for (const auto& tool : request.tools) names.push_back(tool.name);
  return names;
}

std::string result_text(const session::ToolResult& result) { return test::text_in(result.content); }

struct Setup {
  test::TempDir dir;
  std::shared_ptr<test::ProviderJournal> journal = std::make_shared<test::ProviderJournal>();
  fs::path project = dir.path() / "project";
  fs::path home = dir.path() / "home";
  fs::path log = dir.path() / "s.jsonl.zst";

  Setup() {
    fs::create_directories(project / ".git");
    fs::create_directories(home);
  }

  agent::AgentOptions options(const std::string& script, policy::Mode mode = policy::Mode::auto_) {
    auto options =
        test::basic_options(test::scripted_factory(test::script_from(script), journal), project);
    options.home = home;
    options.memory = true;
    options.permissions = agent::PermissionOptions{
        .rules = {.mode = mode}, .project = project, .home = home, .can_ask = false};
    return options;
  }
};

const char* one_answer = R"({"responses": [{"steps": [{"text": "ok"}]}]})";

}  // namespace

TEST_CASE("a built-in is answered by the agent and never reaches the model", "[agent][workflows]") {
  Setup setup;
  test::write_file(setup.project / ".ava" / "commands" / "review.md",
                   "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1");
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options(one_answer));
  REQUIRE(agent);
  const auto help = (*agent)->followup(agent::Input{.text = "/help", .input_id = "help-1"});
  REQUIRE(help);
  // A resent id gets the first receipt, not a second answer.
  const auto again = (*agent)->followup(agent::Input{.text = "/help", .input_id = "help-1"});
  REQUIRE(again);
  CHECK(again->duplicate);
  CHECK(again->seq == help->seq);
  REQUIRE((*agent)->followup("/cost"));
  REQUIRE((*agent)->followup("/context"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  CHECK(setup.journal->snapshot().empty());
  const auto events = test::read_events(setup.log);
  CHECK(events_of<session::InputAcknowledged>(events).empty());
  const auto outputs = events_of<session::CommandOutput>(events);
  REQUIRE(outputs.size() == 3);
  CHECK(outputs[0].command == "help");
  CHECK(outputs[0].input_id == "help-1");
  CHECK(outputs[0].text == "/help");
  CHECK(outputs[0].output.find("/goal") != std::string::npos);
  CHECK(outputs[0].output.find("/review FILE") != std::string::npos);
  CHECK(outputs[1].output == "No tokens used yet.");
  CHECK(outputs[2].output.find("system prompt") != std::string::npos);
}

TEST_CASE("a goal is reminded at the start of every turn until cleared", "[agent][workflows]") {
  Setup setup;
  const auto script = R"({"responses": [
    {"steps": [{"text": "one"}]}, {"steps": [{"text": "two"}]}, {"steps": [{"text": "three"}]}
  ]})";
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options(script));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("/goal make the parser fast"));
  CHECK((*agent)->status().goal == "make the parser fast");
  REQUIRE((*agent)->followup("first"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("second"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("/goal clear"));
  REQUIRE((*agent)->followup("third"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  const auto requests = setup.journal->snapshot();
  REQUIRE(requests.size() == 3);
  const std::string first = text_of(requests[0].messages.back());
  CHECK(first.find("make the parser fast") != std::string::npos);
  CHECK(first.find("first") != std::string::npos);
  CHECK(text_of(requests[1].messages.back()).find("make the parser fast") != std::string::npos);
  CHECK(text_of(requests[2].messages.back()) == "third");

  // The log rebuilds the same context: the goal is an event, not a file.
  const auto events = test::read_events(setup.log);
  const auto goals = events_of<session::GoalSet>(events);
  REQUIRE(goals.size() == 2);
  CHECK(goals[1].goal.empty());
  const auto context = session::rebuild_context(events);
  CHECK(context.goal.empty());
  CHECK(text_of(context.messages[0]).find("make the parser fast") != std::string::npos);
}

TEST_CASE("a /plan turn offers only reads, refuses an edit, and leaves the mode alone",
          "[agent][workflows]") {
  Setup setup;
  test::write_file(setup.project / "a.txt", "old\n");
  const auto script = R"({"responses": [
    {"steps": [
      {"toolCall": {"id": "c1", "name": "edit", "arguments": {"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]}}}]},
    {"steps": [{"text": "1. change a.txt"}]},
    {"steps": [
      {"toolCall": {"id": "c2", "name": "edit", "arguments": {"path": "a.txt", "edits": [{"oldText": "old", "newText": "new"}]}}}]},
    {"steps": [{"text": "done"}]}
  ]})";
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options(script));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("/plan rename old to new"));
  runtime.wait_idle(**agent);
  CHECK(test::read_text(setup.project / "a.txt") == "old\n");
  REQUIRE((*agent)->followup("Approved: carry out the plan."));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  CHECK(test::read_text(setup.project / "a.txt") == "new\n");
  const auto requests = setup.journal->snapshot();
  REQUIRE(requests.size() == 4);
  CHECK(tool_names(requests[0]) == std::vector<std::string>{"read"});
  CHECK(text_of(requests[0].messages.back()).find("Plan mode for this turn") != std::string::npos);
  CHECK(tool_names(requests[2]).size() > 1);  // the next turn has every tool again
  const auto events = test::read_events(setup.log);
  const auto inputs = events_of<session::InputAcknowledged>(events);
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[0].plan);
  CHECK(inputs[0].command == "plan");
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::error);
  CHECK(result_text(results[0]).find("plan mode") != std::string::npos);
  CHECK(results[1].status == session::ToolStatus::ok);
  CHECK(test::check_calls_paired(events).empty());
}

TEST_CASE("/plan without a task switches the conversation to plan mode", "[agent][workflows]") {
  Setup setup;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options(one_answer));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("/plan"));
  CHECK((*agent)->status().permission_mode == "plan");
  runtime.close(**agent);
}

TEST_CASE("memory notes are saved, indexed at the next turn, and forgotten to the attic",
          "[agent][workflows]") {
  Setup setup;
  const auto script = R"({"responses": [
    {"steps": [
      {"toolCall": {"id": "c1", "name": "memory", "arguments": {"action": "save", "name": "style", "summary": "Tabs, not spaces", "content": "The user wants tabs."}}},
      {"toolCall": {"id": "c2", "name": "memory", "arguments": {"action": "save", "name": "me", "scope": "user", "summary": "Prefers short answers", "content": "Short."}}}]},
    {"steps": [{"text": "saved"}]},
    {"steps": [
      {"toolCall": {"id": "c3", "name": "memory", "arguments": {"action": "read", "name": "style"}}},
      {"toolCall": {"id": "c4", "name": "memory", "arguments": {"action": "forget", "name": "style"}}}]},
    {"steps": [{"text": "forgot"}]},
    {"steps": [{"text": "third"}]}
  ]})";
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options(script));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("remember my style"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("what do you know?"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("and now?"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("/memory"));
  runtime.close(**agent);

  const auto requests = setup.journal->snapshot();
  REQUIRE(requests.size() == 5);
  CHECK(requests[0].system.find("no notes yet") != std::string::npos);
  CHECK(requests[1].system == requests[0].system);  // not within a turn
  // Saved during the first turn: indexed from the second turn's start.
  CHECK(requests[2].system.find("- style (project): Tabs, not spaces") != std::string::npos);
  CHECK(requests[2].system.find("- me (user): Prefers short answers") != std::string::npos);
  CHECK(requests[4].system.find("- style") == std::string::npos);
  CHECK(requests[4].system.find("Prefers short answers") != std::string::npos);

  const auto events = test::read_events(setup.log);
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 4);
  for (const auto& result : results) CHECK(result.status == session::ToolStatus::ok);
  CHECK(result_text(results[2]).find("The user wants tabs.") != std::string::npos);
  CHECK_FALSE(fs::exists(setup.project / ".ava" / "memory" / "style.md"));
  CHECK(fs::exists(setup.home / "memory" / "me.md"));
  std::size_t in_attic = 0;
  for (const auto& entry : fs::directory_iterator(setup.project / ".ava" / "memory" / ".attic")) {
    in_attic += entry.path().filename().string().starts_with("style.") ? 1 : 0;
  }
  CHECK(in_attic == 1);
  const auto outputs = events_of<session::CommandOutput>(events);
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].output.find("`me` (user)") != std::string::npos);
}

TEST_CASE("in ask mode, saving a note outside the project is refused when nobody can answer",
          "[agent][workflows]") {
  Setup setup;
  const auto script = R"({"responses": [{"steps": [
    {"toolCall": {"id": "c1", "name": "memory", "arguments": {"action": "save", "name": "me", "scope": "user", "summary": "s", "content": "b"}}},
    {"toolCall": {"id": "c2", "name": "memory", "arguments": {"action": "list"}}},
    {"text": "done"}]}]})";
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log,
                                    setup.options(script, policy::Mode::accept_edits));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("remember me"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto results = events_of<session::ToolResult>(test::read_events(setup.log));
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::error);  // outside the project: asks
  CHECK(results[1].status == session::ToolStatus::ok);     // a read
  CHECK_FALSE(fs::exists(setup.home / "memory" / "me.md"));
}

TEST_CASE("/compact summarizes the whole conversation between turns", "[agent][workflows]") {
  Setup setup;
  const auto script = R"({"responses": [
    {"steps": [{"text": "first answer"}]},
    {"steps": [{"text": "SUMMARY: we talked"}]},
    {"steps": [{"text": "after"}]}
  ]})";
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options(script));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("hello"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("/compact the parser work"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("next"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  const auto requests = setup.journal->snapshot();
  REQUIRE(requests.size() == 3);
  CHECK(text_of(requests[1].messages.back()).find("Focus the summary on: the parser work") !=
        std::string::npos);
  REQUIRE(requests[2].messages.size() == 2);  // the summary, then the new input
  CHECK(text_of(requests[2].messages[0]).find("SUMMARY: we talked") != std::string::npos);
  const auto events = test::read_events(setup.log);
  CHECK(events_of<session::Compacted>(events).size() == 1);
  CHECK(events_of<session::CommandOutput>(events).at(0).output.find("Compacting 2 messages") !=
        std::string::npos);
}

TEST_CASE("an unknown command names the built-ins too", "[agent][workflows]") {
  Setup setup;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options(one_answer));
  REQUIRE(agent);
  const auto refused = (*agent)->followup("/nope");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("/help") != std::string::npos);
  runtime.close(**agent);
}
