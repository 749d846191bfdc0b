// Slash commands through real turns: the log keeps what was typed and the
// expansion, the model gets the expansion, allowed-tools limit the turn's
// tools and let the calls they match run unasked, and an unknown command is
// refused before anything is recorded.
#include <fstream>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"

using namespace ava;
using test::events_of;
namespace fs = std::filesystem;

namespace {

std::string user_text(const llm::Request& request) {
  std::string text;
  for (const auto& block : request.messages.back().content) {
    if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
  }
  return text;
}

std::vector<std::string> tool_names(const llm::Request& request) {
  std::vector<std::string> names;
  for (const auto& tool : request.tools) names.push_back(tool.name);
  return names;
}

struct Setup {
  test::TempDir dir;
  std::shared_ptr<test::ProviderJournal> journal = std::make_shared<test::ProviderJournal>();

  Setup() { fs::create_directories(dir.path() / "project"); }

  agent::AgentOptions options(const std::string& script) {
    auto options = test::basic_options(test::scripted_factory(test::script_from(script), journal),
                                       dir.path() / "project");
    options.home = dir.path() / "home";
    // ask mode with nobody to ask: a call a rule does not allow is refused.
    options.permissions = agent::PermissionOptions{.rules = {.mode = policy::Mode::ask},
                                                   .project = dir.path() / "project",
                                                   .home = dir.path() / "home",
                                                   .can_ask = false};
    return options;
  }
};

}  // namespace

TEST_CASE("a slash command is logged as typed with its expansion, which the model gets",
          "[agent][commands]") {
  Setup setup;
  test::write_file(setup.dir.path() / "project" / ".ava" / "commands" / "review.md",
                   "---\ndescription: Review a file\n---\nReview $1 for bugs. Focus: $ARGUMENTS");
  test::Runtime runtime;
  auto agent =
      agent::Agent::create(runtime.executor(), setup.dir.path() / "s.jsonl.zst",
                           setup.options(R"({"responses": [{"steps": [{"text": "ok"}]}]})"));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("/review src/a.cpp"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto events = test::read_events(setup.dir.path() / "s.jsonl.zst");
  const auto input = events_of<session::InputAcknowledged>(events).at(0);
  CHECK(input.text == "/review src/a.cpp");
  CHECK(input.command == "review");
  CHECK(input.expansion == "Review src/a.cpp for bugs. Focus: src/a.cpp");
  const auto requests = setup.journal->snapshot();
  REQUIRE(requests.size() == 1);
  CHECK(user_text(requests[0]) == input.expansion);
}

TEST_CASE("a command's allowed-tools are the turn's only tools, and run unasked",
          "[agent][commands]") {
  Setup setup;
  test::write_file(setup.dir.path() / "home" / "commands" / "greet.md",
                   "---\nallowed-tools: Bash(echo:*)\n---\nSay hello with echo.");
  const auto script = R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "echo hello"}}}]},
    {"steps": [{"toolCall": {"id": "c2", "name": "write", "arguments": {"path": "x.txt", "content": "x"}}}]},
    {"steps": [{"text": "done"}]},
    {"steps": [{"text": "plain turn"}]}
  ]})";
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.dir.path() / "s.jsonl.zst",
                                    setup.options(script));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("/greet"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("and now?"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  const auto events = test::read_events(setup.dir.path() / "s.jsonl.zst");
  CHECK(test::check_calls_paired(events).empty());
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::ok);  // ask mode, but the command allows it
  CHECK(results[1].status == session::ToolStatus::error);
  CHECK(results[1].content.size() == 1);
  CHECK(
      std::get<content::TextBlock>(results[1].content[0]).text.find("not available in this turn") !=
      std::string::npos);
  CHECK_FALSE(fs::exists(setup.dir.path() / "project" / "x.txt"));
  const auto requests = setup.journal->snapshot();
  REQUIRE(requests.size() == 4);
  CHECK(tool_names(requests[0]) == std::vector<std::string>{"bash"});
  // The next turn has every tool again.
  CHECK(tool_names(requests[3]).size() > 1);
}

TEST_CASE("an unknown command is refused and nothing is recorded", "[agent][commands]") {
  Setup setup;
  test::write_file(setup.dir.path() / "home" / "commands" / "standup.md", "Plan the day.");
  test::Runtime runtime;
  auto agent =
      agent::Agent::create(runtime.executor(), setup.dir.path() / "s.jsonl.zst",
                           setup.options(R"({"responses": [{"steps": [{"text": "ok"}]}]})"));
  REQUIRE(agent);
  const auto refused = (*agent)->followup("/stand-up now");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(refused.error().message.find("unknown command /stand-up") != std::string::npos);
  CHECK(refused.error().message.find("/standup") != std::string::npos);
  // Text that only looks like a path is sent as it is.
  REQUIRE((*agent)->followup("/usr/bin/env is missing"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto inputs =
      events_of<session::InputAcknowledged>(test::read_events(setup.dir.path() / "s.jsonl.zst"));
  REQUIRE(inputs.size() == 1);
  CHECK(inputs[0].command.empty());
}

TEST_CASE("an untrusted project's command narrows the tools but runs nothing unasked",
          "[agent][commands]") {
  const auto script = R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "echo hello"}}}]},
    {"steps": [{"text": "done"}]}
  ]})";
  for (const bool trusted : {false, true}) {
    Setup setup;
    test::write_file(setup.dir.path() / "project" / ".ava" / "commands" / "greet.md",
                     "---\nallowed-tools: Bash(echo:*)\n---\nSay hello with echo.");
    auto options = setup.options(script);
    options.permissions->project_trusted = trusted;
    test::Runtime runtime;
    auto agent = agent::Agent::create(runtime.executor(), setup.dir.path() / "s.jsonl.zst",
                                      std::move(options));
    REQUIRE(agent);
    REQUIRE((*agent)->followup("/greet"));
    runtime.wait_idle(**agent);
    runtime.close(**agent);
    const auto events = test::read_events(setup.dir.path() / "s.jsonl.zst");
    INFO("trusted: " << trusted);
    CHECK(events_of<session::InputAcknowledged>(events).at(0).allowed_tools_unasked == trusted);
    const auto result = events_of<session::ToolResult>(events).at(0);
    // Untrusted: ask mode with nobody to ask refuses the call.
    CHECK((result.status == session::ToolStatus::ok) == trusted);
    CHECK(tool_names(setup.journal->snapshot().at(0)) == std::vector<std::string>{"bash"});
  }
}

TEST_CASE("a command's model answers its turn, and the next turn has the conversation's",
          "[agent][commands]") {
  Setup setup;
  test::write_file(setup.dir.path() / "project" / ".ava" / "commands" / "quick.md",
                   "---\nmodel: small-model\n---\nAnswer quickly: $ARGUMENTS");
  const auto script =
      R"({"responses": [{"steps": [{"text": "quick"}]}, {"steps": [{"text": "slow"}]}]})";
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.dir.path() / "s.jsonl.zst",
                                    setup.options(script));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("/quick what time is it"));
  runtime.wait_idle(**agent);
  REQUIRE((*agent)->followup("and then?"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto requests = setup.journal->snapshot();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].model == "small-model");
  CHECK(requests[1].model == "mock-model");
  const auto events = test::read_events(setup.dir.path() / "s.jsonl.zst");
  CHECK(events_of<session::InputAcknowledged>(events).at(0).model == "small-model");
  const auto steps = events_of<session::StepStarted>(events);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].model == "small-model");
  CHECK(steps[1].model == "mock-model");
  CHECK((*agent)->status().model == "mock-model");
}
