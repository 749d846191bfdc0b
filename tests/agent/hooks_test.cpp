// Hooks around real tool calls: a veto (exit 2 and JSON), allow and ask for
// the permission check, a rewritten input, a timeout and a crash that harm
// nothing, PostToolUse feedback, Stop keeping the turn going once; every run
// recorded as a hook event.
#include <fstream>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"
#include "ava/session/context.hpp"

using namespace ava;
using test::events_of;

namespace {

constexpr auto kTouchThenDone = R"({"responses": [
  {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "touch marker.txt"}}}]},
  {"steps": [{"text": "done"}]}
]})";

policy::Hooks hooks_from(const std::string& block) {
  policy::Hooks hooks;
  std::vector<std::string> unsupported;
  auto added = policy::add_hooks(hooks, nlohmann::json::parse(block), "test", unsupported);
  if (!added) throw std::runtime_error(added.error().message);
  return hooks;
}

agent::AgentOptions options_with(const test::TempDir& dir, const std::string& script,
                                 const std::string& hooks, policy::Mode mode = policy::Mode::auto_,
                                 bool can_ask = false) {
  auto journal = std::make_shared<test::ProviderJournal>();
  auto options =
      test::basic_options(test::scripted_factory(test::script_from(script), journal), dir.path());
  options.permissions = agent::PermissionOptions{.rules = {.mode = mode},
                                                 .project = dir.path(),
                                                 .home = dir.path() / "home",
                                                 .can_ask = can_ask,
                                                 .hooks = hooks_from(hooks)};
  return options;
}

// Runs one turn to its end and returns the log.
std::vector<session::Event> run_turn(const test::TempDir& dir, agent::AgentOptions options) {
  test::Runtime runtime;
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("go"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  CHECK(test::check_calls_paired(events).empty());
  CHECK(events_of<session::TurnEnded>(events).back().reason == session::EndReason::completed);
  return events;
}

std::string pre_tool_use(const std::string& command, const std::string& matcher = "Bash",
                         double timeout = 30) {
  return nlohmann::json{
      {"PreToolUse",
       {{{"matcher", matcher},
         {"hooks", {{{"type", "command"}, {"command", command}, {"timeout", timeout}}}}}}}}
      .dump();
}

std::string result_text(const session::ToolResult& result) {
  std::string text;
  for (const auto& part : result.content) {
    if (const auto* block = std::get_if<content::TextBlock>(&part)) text += block->text;
  }
  return text;
}

bool exists(const test::TempDir& dir, const char* name) {
  return std::filesystem::exists(dir.path() / name);
}

}  // namespace

TEST_CASE("a PreToolUse hook that exits 2 vetoes the call with its reason", "[agent][hooks]") {
  test::TempDir dir;
  const auto events = run_turn(
      dir, options_with(dir, kTouchThenDone, pre_tool_use("echo 'no new files' >&2; exit 2")));
  CHECK_FALSE(exists(dir, "marker.txt"));
  const auto results = events_of<session::ToolResult>(events);
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == session::ToolStatus::error);
  CHECK(result_text(results[0]).find("Blocked by a PreToolUse hook: no new files") !=
        std::string::npos);
  const auto hooks = events_of<session::HookRan>(events);
  REQUIRE(hooks.size() == 1);
  CHECK(hooks[0].hook == "PreToolUse");
  CHECK(hooks[0].outcome == "block");
  CHECK(hooks[0].exit_code == 2);
  CHECK(hooks[0].call_id == "c1");
  CHECK(hooks[0].reason == "no new files");
}

TEST_CASE("a PreToolUse hook sees the call as Claude Code's hooks do", "[agent][hooks]") {
  test::TempDir dir;
  const auto seen = dir.path() / "seen.json";
  run_turn(dir, options_with(dir, kTouchThenDone, pre_tool_use("cat > '" + seen.string() + "'")));
  std::ifstream in(seen);
  const auto input = nlohmann::json::parse(in);
  CHECK(input["hook_event_name"] == "PreToolUse");
  CHECK(input["tool_name"] == "Bash");
  CHECK(input["tool_input"]["command"] == "touch marker.txt");
  CHECK(input["session_id"] == "s");
  CHECK(input["cwd"] == dir.path().string());
  CHECK(exists(dir, "marker.txt"));  // exit 0, nothing printed: the call runs
}

TEST_CASE("a hook for other tools does not run", "[agent][hooks]") {
  test::TempDir dir;
  const auto events =
      run_turn(dir, options_with(dir, kTouchThenDone, pre_tool_use("exit 2", "Edit|Write")));
  CHECK(exists(dir, "marker.txt"));
  CHECK(events_of<session::HookRan>(events).empty());
}

TEST_CASE("a hook's JSON deny refuses, and its allow lets a call run that would ask",
          "[agent][hooks]") {
  SECTION("deny") {
    test::TempDir dir;
    const auto events = run_turn(
        dir,
        options_with(dir, kTouchThenDone,
                     pre_tool_use(R"(echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                        "permissionDecision": "deny", "permissionDecisionReason": "not today"}}')")));
    CHECK_FALSE(exists(dir, "marker.txt"));
    CHECK(result_text(events_of<session::ToolResult>(events).at(0)).find("not today") !=
          std::string::npos);
    CHECK(events_of<session::HookRan>(events).at(0).outcome == "deny");
  }
  SECTION("allow, in ask mode where nobody can answer") {
    test::TempDir dir;
    const auto events = run_turn(
        dir, options_with(
                 dir, kTouchThenDone,
                 pre_tool_use(R"(echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}')"),
                 policy::Mode::ask));
    CHECK(exists(dir, "marker.txt"));
    CHECK(events_of<session::ToolResult>(events).at(0).status == session::ToolStatus::ok);
  }
  SECTION("allow never outranks plan mode") {
    test::TempDir dir;
    run_turn(dir,
             options_with(dir, kTouchThenDone, pre_tool_use(R"(echo '{"decision": "approve"}')"),
                          policy::Mode::plan));
    CHECK_FALSE(exists(dir, "marker.txt"));
  }
  SECTION("ask makes a person look where the mode would run it") {
    test::TempDir dir;
    const auto events = run_turn(
        dir, options_with(
                 dir, kTouchThenDone,
                 pre_tool_use(R"(echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}')")));
    CHECK_FALSE(exists(dir, "marker.txt"));
    CHECK(events_of<session::ToolResult>(events).at(0).details["permission"]["verdict"] == "ask");
  }
}

TEST_CASE("a PreToolUse hook may rewrite the call's input", "[agent][hooks]") {
  test::TempDir dir;
  const auto events = run_turn(
      dir, options_with(dir, kTouchThenDone,
                        pre_tool_use(R"(echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                      "updatedInput": {"command": "touch rewritten.txt"}}}')")));
  CHECK(exists(dir, "rewritten.txt"));
  CHECK_FALSE(exists(dir, "marker.txt"));
  CHECK(events_of<session::HookRan>(events).at(0).outcome == "rewrite");
}

TEST_CASE("a hook that times out or crashes blocks nothing", "[agent][hooks]") {
  SECTION("timeout") {
    test::TempDir dir;
    const auto started = std::chrono::steady_clock::now();
    const auto events =
        run_turn(dir, options_with(dir, kTouchThenDone, pre_tool_use("sleep 20", "*", 0.3)));
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(15));
    // Seen once in CI (not reproduced): the marker missing after a timeout.
    // What the call answered says why, should it happen again.
    const auto results = events_of<session::ToolResult>(events);
    INFO("tool result: " << (results.empty() ? std::string("none") : result_text(results.at(0))));
    CHECK(exists(dir, "marker.txt"));
    const auto hooks = events_of<session::HookRan>(events);
    REQUIRE(hooks.size() == 1);
    CHECK(hooks[0].outcome == "timeout");
  }
  SECTION("crash") {
    test::TempDir dir;
    const auto events = run_turn(
        dir, options_with(dir, kTouchThenDone, pre_tool_use("echo oops >&2; kill -SEGV $$")));
    CHECK(exists(dir, "marker.txt"));
    CHECK(events_of<session::HookRan>(events).at(0).outcome == "error");
  }
  SECTION("exit 1 and garbage on stdout") {
    test::TempDir dir;
    const auto events =
        run_turn(dir, options_with(dir, kTouchThenDone, pre_tool_use("echo '{not json'; exit 1")));
    CHECK(exists(dir, "marker.txt"));
    CHECK(events_of<session::HookRan>(events).at(0).output.find("{not json") != std::string::npos);
  }
}

TEST_CASE("a PostToolUse block reaches the model with the result", "[agent][hooks]") {
  test::TempDir dir;
  const auto hooks = nlohmann::json{
      {"PostToolUse",
       {{{"matcher", "bash"},
         {"hooks",
          {{{"type", "command"},
            {"command", R"(echo '{"decision": "block", "reason": "run the linter next"}')"}}}}}}}};
  const auto events = run_turn(dir, options_with(dir, kTouchThenDone, hooks.dump()));
  CHECK(exists(dir, "marker.txt"));
  const auto result = events_of<session::ToolResult>(events).at(0);
  CHECK(result.status == session::ToolStatus::ok);
  CHECK(result_text(result).find("[PostToolUse hook: run the linter next]") != std::string::npos);
}

TEST_CASE("a Stop hook keeps the turn going once, then lets it end", "[agent][hooks]") {
  test::TempDir dir;
  const auto script = R"({"responses": [
    {"steps": [{"text": "first answer"}]},
    {"steps": [{"text": "second answer"}]}
  ]})";
  const auto hooks = nlohmann::json{
      {"Stop",
       {{{"hooks",
          {{{"type", "command"}, {"command", "echo 'the tests were not run' >&2; exit 2"}}}}}}},
      {"SessionStart", {{{"hooks", {{{"type", "command"}, {"command", "true"}}}}}}}};
  const auto events = run_turn(dir, options_with(dir, script, hooks.dump()));
  const auto inputs = events_of<session::InputAcknowledged>(events);
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[1].kind == session::InputKind::steer);
  CHECK(inputs[1].text == "Stop hook: the tests were not run");
  CHECK(events_of<session::AssistantMessage>(events).size() == 2);
  std::vector<std::string> ran;
  for (const auto& hook : events_of<session::HookRan>(events)) ran.push_back(hook.hook);
  CHECK(ran == std::vector<std::string>{"SessionStart", "Stop", "Stop"});
}

TEST_CASE("a rewritten call waiting for approval runs as rewritten after a reopen",
          "[agent][hooks]") {
  test::TempDir dir;
  const auto log = dir.path() / "s.jsonl.zst";
  const auto rewrite = pre_tool_use(
      R"(echo '{"hookSpecificOutput": {"updatedInput": {"command": "touch rewritten.txt"}}}')");
  std::string id;
  {
    test::Runtime runtime;
    auto agent = agent::Agent::create(
        runtime.executor(), log,
        options_with(dir, kTouchThenDone, rewrite, policy::Mode::ask, /*can_ask=*/true));
    REQUIRE(agent);
    REQUIRE((*agent)->followup("go"));
    for (int i = 0; i < 2000 && (*agent)->status().approvals.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const auto approvals = (*agent)->status().approvals;
    REQUIRE(approvals.size() == 1);
    CHECK(approvals[0].arguments["command"] == "touch rewritten.txt");  // what the person sees
    id = approvals[0].approval_id;
    runtime.close(**agent);
  }
  test::Runtime runtime;
  auto reopened =
      agent::Agent::create_at(runtime.executor(), log,
                              options_with(dir, R"({"responses": [{"steps": [{"text": "done"}]}]})",
                                           "{}", policy::Mode::ask, /*can_ask=*/true));
  REQUIRE(reopened);
  // Answered at once, before the reopened driver reaches the call again:
  // the call must take this answer, not ask a second time.
  REQUIRE((*reopened)->status().approvals.size() == 1);
  REQUIRE((*reopened)->decide(id, {.decision = session::ApprovalDecision::allow}));
  runtime.wait_idle(**reopened);
  runtime.close(**reopened);
  CHECK(exists(dir, "rewritten.txt"));
  CHECK_FALSE(exists(dir, "marker.txt"));
  const auto events = test::read_events(log);
  CHECK(events_of<session::ApprovalRequested>(events).size() == 1);
  CHECK(events_of<session::ToolResult>(events).size() == 1);
  CHECK(test::check_calls_paired(events).empty());
}

namespace {

std::string user_prompt_submit(const std::string& command) {
  return nlohmann::json{
      {"UserPromptSubmit", {{{"hooks", {{{"type", "command"}, {"command", command}}}}}}}}
      .dump();
}

std::string all_text(const llm::Request& request) {
  std::string text;
  for (const auto& message : request.messages) {
    for (const auto& block : message.content) {
      if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text + "\n";
    }
  }
  return text;
}

}  // namespace

TEST_CASE("a UserPromptSubmit hook blocks a prompt: it never reaches the model", "[agent][hooks]") {
  test::TempDir dir;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto options = options_with(dir, R"({"responses": [{"steps": [{"text": "hi"}]}]})",
                              user_prompt_submit("if grep -q secret; then echo 'no secrets in "
                                                 "prompts' >&2; exit 2; fi"));
  options.provider_factory = test::scripted_factory(
      test::script_from(R"({"responses": [{"steps": [{"text": "hi"}]}]})"), journal);
  test::Runtime runtime;
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  REQUIRE((*agent)->followup("the secret is 42"));
  runtime.wait_idle(**agent);
  CHECK(journal->snapshot().empty());  // no turn, no request
  REQUIRE((*agent)->followup("hello"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  const auto events = test::read_events(dir.path() / "s.jsonl.zst");
  const auto blocked = events_of<session::InputBlocked>(events);
  REQUIRE(blocked.size() == 1);
  CHECK(blocked[0].reason == "no secrets in prompts");
  CHECK(blocked[0].hook == "UserPromptSubmit");
  CHECK(events_of<session::TurnStarted>(events).size() == 1);
  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 1);
  CHECK(all_text(requests[0]).find("hello") != std::string::npos);
  CHECK(all_text(requests[0]).find("secret") == std::string::npos);
  // The rebuilt context agrees: nothing pending, the blocked text nowhere.
  const auto context = session::rebuild_context(events);
  CHECK(context.pending.empty());
  const auto hooks = events_of<session::HookRan>(events);
  REQUIRE(hooks.size() == 2);
  CHECK(hooks[0].outcome == "block");
  CHECK(hooks[1].outcome == "ok");
}

TEST_CASE("a UserPromptSubmit hook adds context once, beside the prompt", "[agent][hooks]") {
  test::TempDir dir;
  const auto seen = dir.path() / "seen.json";
  auto journal = std::make_shared<test::ProviderJournal>();
  auto options =
      options_with(dir, R"({"responses": []})",
                   user_prompt_submit("cat > '" + seen.string() + "'; echo 'branch: feature-x'"));
  options.provider_factory = test::scripted_factory(
      test::script_from(R"({"responses": [{"steps": [{"text": "hi"}]}]})"), journal);
  const auto events = run_turn(dir, std::move(options));
  std::ifstream in(seen);
  const auto input = nlohmann::json::parse(in);
  CHECK(input["hook_event_name"] == "UserPromptSubmit");
  CHECK(input["prompt"] == "go");
  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 1);
  const auto& last = requests[0].messages.back();
  CHECK(last.role == content::Role::user);
  const std::string text = all_text(requests[0]);
  CHECK(text.find("go\nUserPromptSubmit hook context:\nbranch: feature-x") != std::string::npos);
  // The context is a steer of its own, screened by nobody and added once.
  const auto inputs = events_of<session::InputAcknowledged>(events);
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[1].input_id.starts_with("prompt-hook."));
  CHECK(events_of<session::HookRan>(events).size() == 1);
}
