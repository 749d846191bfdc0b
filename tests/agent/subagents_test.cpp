// Subagents through real turns: the `task` tool runs a child in its own log
// with its definition's tools, linked both ways; two run at once; an abort
// of the parent reaches the child; the child's usage is counted.
#include <thread>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "ava/proc/sandbox.hpp"
#include "command_provider.hpp"

using namespace ava;
using test::events_of;
namespace fs = std::filesystem;

namespace {

struct Setup {
  test::TempDir dir;
  std::shared_ptr<test::ProviderJournal> journal = std::make_shared<test::ProviderJournal>();
  fs::path project = dir.path() / "project";
  fs::path home = dir.path() / "home";
  fs::path sessions = dir.path() / "sessions";
  fs::path log = sessions / "parent.jsonl.zst";

  Setup() {
    fs::create_directories(project / ".git");
    fs::create_directories(home);
    fs::create_directories(sessions);
    // A subagent of the user's own, with bash only.
    test::write_file(
        project / ".ava" / "agents" / "worker.md",
        "---\ndescription: Runs one command\ntools: Bash\n---\nRun what you are told.");
  }

  agent::AgentOptions options() {
    auto options = test::basic_options(test::command_factory(journal), project);
    options.home = home;
    options.subagents = true;
    options.permissions = agent::PermissionOptions{
        .rules = {.mode = policy::Mode::auto_}, .project = project, .home = home, .can_ask = false};
    return options;
  }

  std::vector<llm::Request> requests_of(std::string_view agent) {
    std::vector<llm::Request> found;
    const std::string marker = fmt::format("You are the \"{}\" subagent", agent);
    for (auto& request : journal->snapshot()) {
      if (request.system.find(marker) != std::string::npos) found.push_back(std::move(request));
    }
    return found;
  }
};

std::vector<std::string> names(const llm::Request& request) {
  std::vector<std::string> out;
  for (const auto& tool : request.tools) out.push_back(tool.name);
  return out;
}

std::string text_of(const session::ToolResult& result) { return test::text_in(result.content); }

}  // namespace

TEST_CASE("explore runs in its own linked log with read-only tools", "[agent][subagents]") {
  Setup setup;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options());
  REQUIRE(agent);
  REQUIRE((*agent)->followup("task: explore: bash: echo looked > found.txt; echo looked"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  const auto events = test::read_events(setup.log);
  CHECK(test::check_calls_paired(events).empty());
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  const auto& details = results[0].details.at("subagent");
  const std::string child = details.at("sessionId");
  CHECK(details.at("agent") == "explore");
  const fs::path child_log = setup.sessions / (child + ".jsonl.zst");
  REQUIRE(fs::exists(child_log));
  const auto child_events = test::read_events(child_log);
  const auto& start = std::get<session::SessionStarted>(child_events.front().body);
  CHECK(start.parent_session_id == "parent");
  CHECK(start.parent_call_id == results[0].call_id);
  CHECK(test::check_calls_paired(child_events).empty());

  // Its tools: reads, and bash only where a read-only sandbox holds it.
  const auto child_requests = setup.requests_of("explore");
  REQUIRE_FALSE(child_requests.empty());
  const bool landlock = proc::sandbox_support().filesystem();
  CHECK(names(child_requests[0]) ==
        (landlock ? std::vector<std::string>{"read", "bash"} : std::vector<std::string>{"read"}));
  CHECK_FALSE(fs::exists(setup.project / "found.txt"));  // the sandbox refused the write

  // The parent's totals count the child's tokens, marked as the child's.
  const auto usage = events_of<session::UsageRecorded>(events);
  CHECK(std::ranges::count_if(usage, [&](const auto& u) { return u.subagent == child; }) == 1);
  CHECK(text_of(results[0]).find("[Subagent explore: completed") != std::string::npos);
}

TEST_CASE("the plan subagent has no tools, and an unknown agent is named", "[agent][subagents]") {
  Setup setup;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options());
  REQUIRE(agent);
  REQUIRE((*agent)->followup("task: plan: split the parser\ntask: nobody: hello"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto plan_requests = setup.requests_of("plan");
  REQUIRE(plan_requests.size() == 1);
  CHECK(plan_requests[0].tools.empty());
  const auto results = events_of<session::ToolResult>(test::read_events(setup.log));
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::ok);
  CHECK(text_of(results[0]).find("echo: split the parser") == 0);
  CHECK(results[1].status == session::ToolStatus::error);
  CHECK(text_of(results[1]).find(R"(agent: must be one of "explore", "plan", "worker")") !=
        std::string::npos);
}

TEST_CASE("two task calls of one step run at once", "[agent][subagents]") {
  Setup setup;
  // Each waits for the other's file: run one after the other, the first
  // would give up after ten seconds and fail.
  const std::string wait_for =
      "for i in $(seq 100); do [ -f {} ] && exit 0; sleep 0.1; done; exit 1";
  const std::string a = "touch a; " + fmt::format(fmt::runtime(wait_for), "b");
  const std::string b = "touch b; " + fmt::format(fmt::runtime(wait_for), "a");
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options());
  REQUIRE(agent);
  REQUIRE((*agent)->followup("task: worker: bash: " + a + "\ntask: worker: bash: " + b));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto events = test::read_events(setup.log);
  CHECK(test::check_calls_paired(events).empty());
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 2);
  for (const auto& result : results) {
    INFO(text_of(result));
    CHECK(result.status == session::ToolStatus::ok);
    CHECK(text_of(result).find("tools: bash ok]") != std::string::npos);
  }
  // In the model's order, whichever finished first.
  const auto calls = test::events_of<session::AssistantMessage>(events).at(0).content;
  CHECK(results[0].call_id == std::get<content::ToolCallBlock>(calls[0]).id);
  CHECK(results[1].call_id == std::get<content::ToolCallBlock>(calls[1]).id);
  // A user-defined agent gets what its definition lists.
  for (const auto& request : setup.requests_of("worker")) {
    CHECK(names(request) == std::vector<std::string>{"bash"});
  }
}

TEST_CASE("aborting the parent aborts its running subagent", "[agent][subagents]") {
  Setup setup;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), setup.log, setup.options());
  REQUIRE(agent);
  REQUIRE((*agent)->followup("task: worker: bash: sleep 30"));
  // Wait until the child's bash runs.
  for (int i = 0; i < 400 && setup.requests_of("worker").empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto started = std::chrono::steady_clock::now();
  REQUIRE((*agent)->abort());
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));

  const auto events = test::read_events(setup.log);
  CHECK(test::check_calls_paired(events).empty());
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == session::ToolStatus::interrupted);
  CHECK(events_of<session::TurnEnded>(events).at(0).reason == session::EndReason::aborted);
  const std::string child = results[0].details.at("subagent").at("sessionId");
  const auto child_events = test::read_events(setup.sessions / (child + ".jsonl.zst"));
  CHECK(test::check_calls_paired(child_events).empty());
  CHECK(events_of<session::TurnEnded>(child_events).at(0).reason == session::EndReason::aborted);
}
