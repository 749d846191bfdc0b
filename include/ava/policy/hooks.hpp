#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

// Hooks in the format Claude Code users already keep in settings.json
// (docs/permissions.md): commands run around tool calls and lifecycle
// points, given the event as JSON on stdin. This package parses them and
// reads their answers; the agent runs them.
//   {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
//                              "hooks": [{"type": "command", "command": "./check.sh",
//                                         "timeout": 30}]}]}}
namespace ava::policy {

enum class HookEvent {
  pre_tool_use,
  post_tool_use,
  user_prompt_submit,
  stop,
  session_start,
  session_end,
  pre_compact
};
std::string_view to_string(HookEvent event);  // "PreToolUse", ...
std::optional<HookEvent> parse_hook_event(std::string_view name);

struct HookCommand {
  HookEvent event = HookEvent::pre_tool_use;
  std::string matcher;  // tool names for the tool events; empty or "*": every tool
  std::string command;  // run by /bin/sh -c in the project folder
  std::chrono::milliseconds timeout{60'000};
  std::string source;  // the settings file
};

struct Hooks {
  std::vector<HookCommand> commands;
  bool empty() const { return commands.empty(); }
  // The commands for `event` whose matcher takes `tool` (every command of
  // an event that has no tool).
  std::vector<const HookCommand*> matching(HookEvent event, std::string_view tool = {}) const;
};

// Claude Code's matchers are regular expressions; the forms people write
// are kept without a regex engine (no catastrophic patterns from a file):
// alternatives split at '|', each a name or a glob where `*` and `.*` are
// any text, compared without regard to case. "Bash", "Edit|Write",
// "mcp__github__.*", "*".
bool hook_matches(std::string_view matcher, std::string_view tool);

// The "hooks" block of one settings file, added to `into`. An event this
// version does not run (Notification, SubagentStop, ...) is returned in
// `unsupported` rather than dropped silently; a malformed block is an error.
Result<void> add_hooks(Hooks& into, const nlohmann::json& block, const std::string& source,
                       std::vector<std::string>& unsupported);

// What a hook's run says, read as Claude Code does: exit 2 blocks with
// stderr as the reason; exit 0 may print JSON ({"decision": "block",
// "reason"}, {"continue": false, "stopReason"}, and for PreToolUse
// {"hookSpecificOutput": {"permissionDecision": "allow"|"ask"|"deny",
// "permissionDecisionReason", "updatedInput": {...}}}); any other exit, a
// crash or a timeout is an error that blocks nothing. For UserPromptSubmit
// a plain stdout on exit 0 is context for the model, as in Claude Code.
struct HookReply {
  std::string outcome;  // ok, block, allow, ask, deny, rewrite, error, timeout
  std::string reason;
  std::optional<nlohmann::json> updated_input;  // PreToolUse: the tool's new arguments
  // UserPromptSubmit: text the model gets with the prompt (plain stdout on
  // exit 0, or hookSpecificOutput.additionalContext), bounded.
  std::string additional_context;
};
HookReply read_hook_reply(HookEvent event, int exit_code, bool timed_out, std::string_view out,
                          std::string_view err);

// Claude Code's names for the built-in tools (Bash, Edit, Write, Read), so
// that its hook scripts see what they test for; other names unchanged.
std::string hook_tool_name(std::string_view tool);

}  // namespace ava::policy
