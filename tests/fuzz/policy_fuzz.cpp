// The permission check on hostile text: a rule as a settings file may hold
// it (the first line) and a bash command line as a model may write it (the
// rest).
//
// Checks: parse_rule refuses with invalid_argument or gives a lower-case
// tool; the split commands are non-empty and trimmed; a rule other than a
// bare `bash` / `bash(*)` never allows a line that hides what it runs
// (opaque); a line the rule allows is denied when the same rule is also a
// deny rule; the bytes as a hooks block and as a hook's answer never throw
// and keep reasons bounded; nothing is slow (libFuzzer flags slow inputs).
#include <cctype>
#include <string>
#include <string_view>

#include "ava/base/json.hpp"
#include "ava/policy/hooks.hpp"
#include "ava/policy/policy.hpp"
#include "fuzz/fuzz_check.hpp"
#include "policy/glob.hpp"
#include "policy/shell_line.hpp"

using namespace ava::policy;  // NOLINT(google-build-using-namespace): one short file

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto newline = input.find('\n');
  const std::string_view rule_text = input.substr(0, newline);
  const std::string command(newline == std::string_view::npos ? "" : input.substr(newline + 1));

  // The same bytes as a settings file's hooks block and as a hook's answer:
  // a malformed block is an error, never a throw; a reply's reason is bounded.
  if (auto block = ava::base::parse_json(input); block) {
    Hooks hooks;
    std::vector<std::string> unsupported;
    (void)add_hooks(hooks, *block, "fuzz", unsupported);
    for (const auto& hook : hooks.commands) {
      FUZZ_CHECK(!hook.command.empty() && hook.timeout.count() > 0);
      (void)hook_matches(hook.matcher, command);
    }
  }
  for (const auto event : {HookEvent::pre_tool_use, HookEvent::stop}) {
    const auto reply = read_hook_reply(event, 2, false, input, input);
    FUZZ_CHECK(reply.outcome == "block" && reply.reason.size() <= 2000);
    const auto answered = read_hook_reply(event, 0, false, input, {});
    FUZZ_CHECK(answered.reason.size() <= 2000);
  }
  (void)hook_matches(rule_text, command);

  const auto line = split_shell_line(command);
  for (const auto& part : line.commands) {
    FUZZ_CHECK(!part.empty() && part.front() != ' ' && part.back() != ' ');
  }
  (void)glob_match(rule_text, command, true);
  (void)glob_match(rule_text, command, false);

  const auto rule = parse_rule(rule_text);
  if (!rule) {
    FUZZ_CHECK(rule.error().code == ava::ErrorCode::invalid_argument);
    return 0;
  }
  for (const char c : rule->tool) FUZZ_CHECK(std::isupper(static_cast<unsigned char>(c)) == 0);
  const Places places{
      .project = "/nonexistent/p", .cwd = "/nonexistent/p", .home = "/nonexistent/h"};
  const ToolCall call{
      .tool = "bash", .category = Category::execute, .path = {}, .command = command};
  const RuleSet allowing{.mode = Mode::ask, .allow = {*rule}, .ask = {}, .deny = {}};
  const auto allowed = evaluate(allowing, call, places);
  const bool bare = rule->tool == "bash" && (rule->specifier.empty() || rule->specifier == "*");
  if (allowed.verdict == Verdict::allow && !bare) FUZZ_CHECK(!line.opaque);
  if (allowed.verdict == Verdict::allow) {  // in ask mode only the rule can allow bash
    const RuleSet both{.mode = Mode::ask, .allow = {*rule}, .ask = {}, .deny = {*rule}};
    FUZZ_CHECK(evaluate(both, call, places).verdict == Verdict::deny);  // deny wins
  }

  // A path call under the same rule: must not throw on any path text.
  const ToolCall edit{.tool = "edit", .category = Category::edit, .path = command, .command = {}};
  (void)evaluate(allowing, edit, places);
  return 0;
}
