#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

// Who may run which tool call without asking a person (docs/permissions.md):
// tool categories, the four modes, and allow / ask / deny rules in the forms
// Claude Code users already write. This package decides; the agent's
// dispatch asks it before every call and carries out the answer.
namespace ava::policy {

// What a call may do. MCP tools that declare readOnlyHint count as read.
enum class Category { read, edit, execute, network, mcp };
std::string_view to_string(Category category);

// ask: reads run, the rest needs a person unless a rule allows it.
// accept_edits: edits inside the project run too. plan: read-only, mutating
// calls are refused with a message the model can act on. auto: everything
// runs (inside the sandbox when it is on).
enum class Mode { ask, accept_edits, plan, auto_ };
std::string_view to_string(Mode mode);
Result<Mode> parse_mode(std::string_view text);  // "ask", "accept-edits", "plan", "auto"

// One call as the policy sees it. `path` is the file an edit or read names
// (absolute, or relative to `cwd`); `command` is a bash command line.
struct ToolCall {
  std::string tool;  // "bash", "edit", "write", "read", "mcp__server__tool"
  Category category = Category::read;
  std::optional<std::string> path;
  std::optional<std::string> command;
};

// A rule as written: `bash`, `bash(git status*)`, `edit(src/**)`,
// `read(./.env)`, `mcp__github__*`. Tool names are matched without regard to
// case, so `Bash(npm test)` from a Claude Code settings file works as is.
struct Rule {
  std::string text;       // as written, for messages and `ava permissions`
  std::string tool;       // lower-case; may hold '*' for MCP names
  std::string specifier;  // inside the parentheses; empty: every call of the tool
};
Result<Rule> parse_rule(std::string_view text);
// Whether a rule is about this call's tool at all (its specifier aside):
// `edit` names every built-in tool that changes files, `read` every one
// that reads, `mcp__github__*` the tools of that server.
bool rule_names_tool(const Rule& rule, const ToolCall& call);

enum class Verdict { allow, ask, deny };
std::string_view to_string(Verdict verdict);

struct RuleSet {
  Mode mode = Mode::ask;
  std::vector<Rule> allow;
  std::vector<Rule> ask;
  std::vector<Rule> deny;
};

// Where paths in rules and calls are resolved: `./x` and bare relative
// patterns are under the project, `~/x` under home, `//x` is the absolute
// path /x.
struct Places {
  std::filesystem::path project;  // the conversation's project folder
  std::filesystem::path cwd;      // where relative call paths start
  std::filesystem::path home;     // the user's home, for ~/ patterns
};

struct Decision {
  Verdict verdict = Verdict::ask;
  std::string reason;               // for the model and the UIs
  std::optional<std::string> rule;  // the rule that decided, as written
};

// deny rules win over ask rules, which win over allow rules; without a rule
// the mode decides. A bash command line is allowed only when each of its
// commands (split at ; && || | & and newlines) is allowed, and one denied
// command denies it; command substitution or a redirection can never be
// proven to match an allow rule, so such a line asks.
Decision evaluate(const RuleSet& rules, const ToolCall& call, const Places& places);

// Allow rules that would let calls like this one run without asking, most
// specific first, for a person to grant when approving it:
// `bash(npm run:*)` for each command of a line (none for a line that hides
// what it runs), `edit(src/**)` for the file's folder, the MCP tool and
// `mcp__server__*`.
std::vector<std::string> suggest_rules(const ToolCall& call, const Places& places);

}  // namespace ava::policy
