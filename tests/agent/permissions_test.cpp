// The permission check in the agent's dispatch, against real tool calls:
// modes, rules, refusals when nobody can answer, and durable approvals that
// survive a close, a copied ("crashed") log and an abort.
#include <fstream>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"

using namespace ava;
using test::events_of;

namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

policy::RuleSet rules_in(policy::Mode mode, std::vector<std::string> allow = {},
                         std::vector<std::string> deny = {}) {
  policy::RuleSet rules;
  rules.mode = mode;
  for (const auto& text : allow) rules.allow.push_back(*policy::parse_rule(text));
  for (const auto& text : deny) rules.deny.push_back(*policy::parse_rule(text));
  return rules;
}

agent::AgentOptions options_for(const test::TempDir& dir, const std::string& script,
                                policy::RuleSet rules, bool can_ask = true) {
  auto journal = std::make_shared<test::ProviderJournal>();
  auto options =
      test::basic_options(test::scripted_factory(test::script_from(script), journal), dir.path());
  options.permissions = agent::PermissionOptions{.rules = std::move(rules),
                                                 .project = dir.path(),
                                                 .home = dir.path() / "home",
                                                 .can_ask = can_ask};
  return options;
}

// A bash call that creates marker.txt, then a final answer.
constexpr auto kBashThenDone = R"({"responses": [
  {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "touch marker.txt"}}}]},
  {"steps": [{"text": "done"}]}
]})";

void wait_for_approval(agent::Agent& agent) {
  for (int i = 0; i < 2000; ++i) {
    const auto status = agent.status();
    if (status.state == agent::DriverState::waiting && !status.approvals.empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  throw std::runtime_error("no approval was requested");
}

std::string text_of(const session::ToolResult& result) {
  std::string text;
  for (const auto& part : result.content) {
    if (const auto* block = std::get_if<content::TextBlock>(&part)) text += block->text;
  }
  return text;
}

// A new agent on `log`, its first input sent.
std::unique_ptr<agent::Agent> started(test::Runtime& runtime, const std::filesystem::path& log,
                                      agent::AgentOptions options) {
  auto agent = agent::Agent::create(runtime.executor(), log, std::move(options));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("go"));
  return std::move(*agent);
}

std::vector<session::ToolResult> results_in(const std::filesystem::path& log) {
  return events_of<session::ToolResult>(test::read_events(log));
}

}  // namespace

TEST_CASE("plan mode refuses a mutating call with a message and the turn goes on",
          "[agent][permissions]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = started(runtime, dir.path() / "s.jsonl.zst",
                       options_for(dir, kBashThenDone, rules_in(policy::Mode::plan)));
  runtime.wait_idle(*agent);
  CHECK(agent->status().permission_mode == "plan");
  runtime.close(*agent);

  CHECK_FALSE(std::filesystem::exists(dir.path() / "marker.txt"));
  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == session::ToolStatus::error);
  CHECK(results[0].details["permission"]["verdict"] == "deny");
  CHECK(events_of<session::TurnEnded>(events).back().reason == session::EndReason::completed);
  CHECK(test::check_calls_paired(events).empty());
}

TEST_CASE("a deny rule wins over auto, and reads run in ask mode", "[agent][permissions]") {
  test::TempDir dir;
  { std::ofstream(dir.path() / "notes.txt") << "hello\n"; }
  test::Runtime runtime;
  const auto script = R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "rm -f notes.txt"}}},
               {"toolCall": {"id": "c2", "name": "read", "arguments": {"path": "notes.txt"}}}]},
    {"steps": [{"text": "done"}]}
  ]})";
  auto agent = started(runtime, dir.path() / "s.jsonl.zst",
                       options_for(dir, script, rules_in(policy::Mode::auto_, {}, {"bash(rm:*)"})));
  runtime.wait_idle(*agent);
  runtime.close(*agent);

  CHECK(std::filesystem::exists(dir.path() / "notes.txt"));
  const auto results = results_in(dir.path() / "s.jsonl.zst");
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::error);
  CHECK(results[0].details["permission"]["rule"] == "bash(rm:*)");
  CHECK(results[1].status == session::ToolStatus::ok);
}

TEST_CASE("with nobody to ask, a call that would ask is refused and says why",
          "[agent][permissions]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent =
      started(runtime, dir.path() / "s.jsonl.zst",
              options_for(dir, kBashThenDone, rules_in(policy::Mode::ask), /*can_ask=*/false));
  runtime.wait_idle(*agent);
  runtime.close(*agent);

  CHECK_FALSE(std::filesystem::exists(dir.path() / "marker.txt"));
  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  CHECK(events_of<session::ApprovalRequested>(events).empty());
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == session::ToolStatus::error);
  CHECK(results[0].details["permission"]["verdict"] == "ask");
}

TEST_CASE("an approved call runs once, and a second decision is a conflict",
          "[agent][permissions]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = started(runtime, dir.path() / "s.jsonl.zst",
                       options_for(dir, kBashThenDone, rules_in(policy::Mode::ask)));
  wait_for_approval(*agent);

  const auto pending = agent->status().approvals;
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].tool_name == "bash");
  CHECK(pending[0].category == "execute");
  CHECK(pending[0].arguments["command"] == "touch marker.txt");
  CHECK(pending[0].suggested_rules == std::vector<std::string>{"bash(touch:*)"});
  CHECK_FALSE(std::filesystem::exists(dir.path() / "marker.txt"));

  REQUIRE(agent->decide(pending[0].approval_id, {.decision = session::ApprovalDecision::allow}));
  runtime.wait_idle(*agent);
  const auto again =
      agent->decide(pending[0].approval_id, {.decision = session::ApprovalDecision::allow});
  REQUIRE_FALSE(again);
  CHECK(again.error().code == ErrorCode::conflict);
  const auto unknown = agent->decide("nope", {.decision = session::ApprovalDecision::allow});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ErrorCode::conflict);
  CHECK(agent->status().approvals.empty());
  runtime.close(*agent);

  CHECK(std::filesystem::exists(dir.path() / "marker.txt"));
  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  const auto decided = events_of<session::ApprovalDecided>(events);
  REQUIRE(decided.size() == 1);
  CHECK(decided[0].call_id == "c1");
  CHECK(test::check_calls_paired(events).empty());
}

TEST_CASE("a denial reaches the model with the person's note and the turn goes on",
          "[agent][permissions]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = started(runtime, dir.path() / "s.jsonl.zst",
                       options_for(dir, kBashThenDone, rules_in(policy::Mode::ask)));
  wait_for_approval(*agent);
  const auto id = agent->status().approvals.at(0).approval_id;
  REQUIRE(agent->decide(
      id, {.decision = session::ApprovalDecision::deny, .message = "use the write tool instead"}));
  runtime.wait_idle(*agent);
  runtime.close(*agent);

  CHECK_FALSE(std::filesystem::exists(dir.path() / "marker.txt"));
  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == session::ToolStatus::error);
  CHECK(text_of(results[0]).find("use the write tool instead") != std::string::npos);
  CHECK(events_of<session::TurnEnded>(events).back().reason == session::EndReason::completed);
}

TEST_CASE("abort while waiting pairs the call with a skipped result", "[agent][permissions]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = started(runtime, dir.path() / "s.jsonl.zst",
                       options_for(dir, kBashThenDone, rules_in(policy::Mode::ask)));
  wait_for_approval(*agent);
  const auto id = agent->status().approvals.at(0).approval_id;
  REQUIRE(agent->abort());
  runtime.wait_idle(*agent);
  const auto late = agent->decide(id, {.decision = session::ApprovalDecision::allow});
  REQUIRE_FALSE(late);
  CHECK(late.error().code == ErrorCode::conflict);
  runtime.close(*agent);

  CHECK_FALSE(std::filesystem::exists(dir.path() / "marker.txt"));
  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == session::ToolStatus::skipped);
  CHECK(events_of<session::TurnEnded>(events).back().reason == session::EndReason::aborted);
  CHECK(test::check_calls_paired(events).empty());
}

TEST_CASE("a pending approval survives close and reopen and is answered after it",
          "[agent][permissions]") {
  test::TempDir dir;
  const auto log = dir.path() / "s.jsonl.zst";
  std::string id;
  {
    test::Runtime runtime;
    auto agent =
        started(runtime, log, options_for(dir, kBashThenDone, rules_in(policy::Mode::ask)));
    wait_for_approval(*agent);
    id = agent->status().approvals.at(0).approval_id;
    runtime.close(*agent);
  }
  const auto closed = test::read_events(log);
  CHECK(events_of<session::ToolResult>(closed).empty());
  CHECK(events_of<session::ApprovalDecided>(closed).empty());

  // The script's first response was used before the close; the reopened
  // agent only needs the final answer.
  test::Runtime runtime;
  auto reopened =
      agent::Agent::create_at(runtime.executor(), log,
                              options_for(dir, R"({"responses": [{"steps": [{"text": "done"}]}]})",
                                          rules_in(policy::Mode::ask)));
  REQUIRE(reopened);
  wait_for_approval(**reopened);
  REQUIRE((*reopened)->status().approvals.at(0).approval_id == id);
  REQUIRE((*reopened)->decide(id, {.decision = session::ApprovalDecision::allow}));
  runtime.wait_idle(**reopened);
  runtime.close(**reopened);

  CHECK(std::filesystem::exists(dir.path() / "marker.txt"));
  const auto events = test::read_events(log);
  CHECK(events_of<session::ToolResult>(events).size() == 1);
  CHECK(test::check_calls_paired(events).empty());
}

TEST_CASE("a log copied while waiting (a crash) reopens still waiting", "[agent][permissions]") {
  test::TempDir dir;
  const auto log = dir.path() / "s.jsonl.zst";
  const auto crashed = dir.path() / "crashed.jsonl.zst";
  test::Runtime runtime;
  auto agent = started(runtime, log, options_for(dir, kBashThenDone, rules_in(policy::Mode::ask)));
  wait_for_approval(*agent);
  // What a SIGKILL leaves: the file as the kernel has it, no close.
  std::filesystem::copy_file(log, crashed);
  REQUIRE(agent->abort());
  runtime.wait_idle(*agent);
  runtime.close(*agent);

  auto reopened =
      agent::Agent::create_at(runtime.executor(), crashed,
                              options_for(dir, R"({"responses": [{"steps": [{"text": "done"}]}]})",
                                          rules_in(policy::Mode::ask)));
  REQUIRE(reopened);
  wait_for_approval(**reopened);
  const auto id = (*reopened)->status().approvals.at(0).approval_id;
  REQUIRE((*reopened)->decide(id, {.decision = session::ApprovalDecision::allow}));
  runtime.wait_idle(**reopened);
  runtime.close(**reopened);

  CHECK(std::filesystem::exists(dir.path() / "marker.txt"));
  const auto events = test::read_events(crashed);
  CHECK(events_of<session::ToolResult>(events).size() == 1);
  CHECK(test::check_calls_paired(events).empty());
}

TEST_CASE("a rule granted for the conversation lets the next such call run",
          "[agent][permissions]") {
  test::TempDir dir;
  test::Runtime runtime;
  const auto script = R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "touch one.txt"}}}]},
    {"steps": [{"toolCall": {"id": "c2", "name": "bash", "arguments": {"command": "touch two.txt"}}}]},
    {"steps": [{"text": "done"}]}
  ]})";
  auto agent = started(runtime, dir.path() / "s.jsonl.zst",
                       options_for(dir, script, rules_in(policy::Mode::ask)));
  wait_for_approval(*agent);
  const auto id = agent->status().approvals.at(0).approval_id;
  REQUIRE(agent->decide(id, {.decision = session::ApprovalDecision::allow,
                             .scope = session::ApprovalScope::conversation}));
  runtime.wait_idle(*agent);
  CHECK(agent->status().granted_rules == std::vector<std::string>{"bash(touch:*)"});
  runtime.close(*agent);

  CHECK(std::filesystem::exists(dir.path() / "one.txt"));
  CHECK(std::filesystem::exists(dir.path() / "two.txt"));
  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  CHECK(events_of<session::ApprovalRequested>(events).size() == 1);
}

TEST_CASE("accept-edits runs edits inside the project and asks for those outside",
          "[agent][permissions]") {
  test::TempDir dir;
  test::TempDir outside;
  test::Runtime runtime;
  const auto script = std::string(R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "write", "arguments": {"path": "inside.txt", "content": "in"}}},
               {"toolCall": {"id": "c2", "name": "write", "arguments": {"path": ")") +
                      (outside.path() / "outside.txt").string() + R"(", "content": "out"}}}]},
    {"steps": [{"text": "done"}]}
  ]})";
  auto agent =
      started(runtime, dir.path() / "s.jsonl.zst",
              options_for(dir, script, rules_in(policy::Mode::accept_edits), /*can_ask=*/false));
  runtime.wait_idle(*agent);
  runtime.close(*agent);

  CHECK(slurp(dir.path() / "inside.txt") == "in");
  CHECK_FALSE(std::filesystem::exists(outside.path() / "outside.txt"));
  const auto results = results_in(dir.path() / "s.jsonl.zst");
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::ok);
  CHECK(results[1].status == session::ToolStatus::error);
}

TEST_CASE("a mode chosen for the conversation is kept across a reopen", "[agent][permissions]") {
  test::TempDir dir;
  const auto log = dir.path() / "s.jsonl.zst";
  const auto done = R"({"responses": [{"steps": [{"text": "done"}]}]})";
  {
    test::Runtime runtime;
    auto agent = agent::Agent::create(runtime.executor(), log,
                                      options_for(dir, done, rules_in(policy::Mode::ask)));
    REQUIRE(agent);
    REQUIRE((*agent)->set_permission_mode(policy::Mode::plan));
    CHECK((*agent)->status().permission_mode == "plan");
    runtime.close(**agent);
  }
  test::Runtime runtime;
  auto reopened = agent::Agent::create_at(runtime.executor(), log,
                                          options_for(dir, done, rules_in(policy::Mode::ask)));
  REQUIRE(reopened);
  CHECK((*reopened)->status().permission_mode == "plan");
  runtime.close(**reopened);
  CHECK(events_of<session::PermissionModeChanged>(test::read_events(log)).size() == 1);
}

TEST_CASE("auto without the sandbox it asked for behaves as accept-edits", "[agent][permissions]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto options = options_for(dir, kBashThenDone, rules_in(policy::Mode::auto_), /*can_ask=*/false);
  options.permissions->sandbox.mode = proc::SandboxMode::workspace_write;
  options.permissions->sandbox.writable_roots = {dir.path()};
  const bool landlock = proc::sandbox_support().landlock_abi > 0;
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("go"));
  runtime.wait_idle(**agent);
  const auto status = (*agent)->status();
  runtime.close(**agent);

  const auto results = results_in(dir.path() / "s.jsonl.zst");
  REQUIRE(results.size() == 1);
  if (landlock) {
    CHECK(status.sandbox == "workspace-write");
    CHECK(results[0].status == session::ToolStatus::ok);
    CHECK(std::filesystem::exists(dir.path() / "marker.txt"));
  } else {
    CHECK(status.sandbox == "unavailable");
    CHECK(status.permission_mode == "accept-edits");
    CHECK(results[0].status == session::ToolStatus::error);
  }
}
