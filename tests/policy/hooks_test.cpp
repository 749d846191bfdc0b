#include <catch2/catch.hpp>

#include "ava/policy/hooks.hpp"

using namespace ava::policy;
using nlohmann::json;

TEST_CASE("hook matchers take the forms Claude Code users write", "[policy][hooks]") {
  CHECK(hook_matches("", "bash"));
  CHECK(hook_matches("*", "mcp__x__y"));
  CHECK(hook_matches("Bash", "bash"));
  CHECK(hook_matches("Edit|Write", "write"));
  CHECK_FALSE(hook_matches("Edit|Write", "bash"));
  CHECK(hook_matches("mcp__github__.*", "mcp__github__create_issue"));
  CHECK_FALSE(hook_matches("mcp__github__.*", "mcp__gitlab__x"));
  CHECK_FALSE(hook_matches("Bash", "bashful"));
}

TEST_CASE("the hooks block is read as Claude Code writes it", "[policy][hooks]") {
  Hooks hooks;
  std::vector<std::string> unsupported;
  const auto block = json::parse(R"({
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
  })");
  REQUIRE(add_hooks(hooks, block, "settings.json", unsupported));
  REQUIRE(hooks.commands.size() == 2);
  CHECK(unsupported == std::vector<std::string>{"Notification"});
  CHECK(hooks.matching(HookEvent::pre_tool_use, "bash").size() == 1);
  CHECK(hooks.matching(HookEvent::pre_tool_use, "edit").empty());
  CHECK(hooks.matching(HookEvent::pre_tool_use, "bash")[0]->timeout == std::chrono::seconds(5));
  CHECK(hooks.matching(HookEvent::stop).size() == 1);
  CHECK(hooks.matching(HookEvent::stop)[0]->timeout == std::chrono::seconds(60));

  for (const char* bad :
       {R"({"PreToolUse": {}})", R"({"PreToolUse": [{"hooks": "x"}]})",
        R"({"PreToolUse": [{"hooks": [{"type": "prompt", "command": "x"}]}]})",
        R"({"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]})",
        R"([1])"}) {
    Hooks none;
    CHECK_FALSE(add_hooks(none, json::parse(bad), "f", unsupported));
  }
}

TEST_CASE("a hook's answer is read from its exit code and output", "[policy][hooks]") {
  const auto pre = HookEvent::pre_tool_use;
  CHECK(read_hook_reply(pre, 0, false, "", "").outcome == "ok");
  CHECK(read_hook_reply(pre, 0, false, "plain text\n", "").outcome == "ok");
  const auto blocked = read_hook_reply(pre, 2, false, "", "  no pushes to main\n");
  CHECK(blocked.outcome == "block");
  CHECK(blocked.reason == "no pushes to main");
  CHECK(read_hook_reply(pre, 1, false, "", "boom").outcome == "error");
  CHECK(read_hook_reply(pre, 0, true, "", "").outcome == "timeout");
  CHECK(read_hook_reply(pre, 0, false, R"({"decision": "block", "reason": "r"})", "").reason ==
        "r");
  CHECK(read_hook_reply(pre, 0, false, R"({"continue": false, "stopReason": "s"})", "").outcome ==
        "block");
  const auto allow = read_hook_reply(
      pre, 0, false,
      R"({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}})",
      "");
  CHECK(allow.outcome == "allow");
  CHECK(allow.updated_input == json{{"command", "ls"}});
  CHECK(read_hook_reply(pre, 0, false, R"({"hookSpecificOutput": {"updatedInput": {"a": 1}}})", "")
            .outcome == "rewrite");
  CHECK(read_hook_reply(pre, 0, false, R"({"decision": "approve"})", "").outcome == "allow");
  // PreToolUse's decisions mean nothing to the other events.
  CHECK(read_hook_reply(HookEvent::stop, 0, false, R"({"decision": "approve"})", "").outcome ==
        "ok");
  // Hostile output: deep nesting and huge reasons are bounded.
  CHECK(
      read_hook_reply(pre, 0, false, std::string(5000, '[') + std::string(5000, ']'), "").outcome ==
      "ok");
  CHECK(read_hook_reply(pre, 2, false, "", std::string(100000, 'x')).reason.size() <= 2000);
  CHECK(hook_tool_name("bash") == "Bash");
  CHECK(hook_tool_name("mcp__a__b") == "mcp__a__b");
}

TEST_CASE("a UserPromptSubmit hook's output is context for the model", "[policy][hooks]") {
  const auto prompt = HookEvent::user_prompt_submit;
  CHECK(read_hook_reply(prompt, 0, false, "  branch: main\n", "").additional_context ==
        "branch: main");
  CHECK(read_hook_reply(prompt, 0, false,
                        R"({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                             "additionalContext": "the date is 2026-12-04"}})",
                        "")
            .additional_context == "the date is 2026-12-04");
  const auto blocked =
      read_hook_reply(prompt, 0, false, R"({"decision": "block", "reason": "r"})", "");
  CHECK(blocked.outcome == "block");
  CHECK(blocked.additional_context.empty());
  CHECK(read_hook_reply(prompt, 2, false, "ignored", "no secrets").reason == "no secrets");
  // Other events add nothing; a huge output is cut at 10,000 bytes on a
  // character boundary.
  CHECK(read_hook_reply(HookEvent::stop, 0, false, "text", "").additional_context.empty());
  std::string huge;
  for (int i = 0; i < 6000; ++i) huge += "é";
  const auto cut = read_hook_reply(prompt, 0, false, huge, "").additional_context;
  CHECK(cut.size() <= 10'000);
  CHECK(cut.size() % 2 == 0);
}
