// The permission check: rules first (deny, then ask, then allow), then the
// mode. Paths are compared after resolving symlinks, so a link inside the
// project that points outside it is outside it.
#include <optional>
#include <string>

#include "ava/policy/policy.hpp"
#include "policy/glob.hpp"
#include "policy/shell_line.hpp"

namespace ava::policy {
namespace {

namespace fs = std::filesystem;

// Lexically clean, then with every existing part's symlinks resolved.
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  auto canonical = fs::weakly_canonical(path.lexically_normal(), ec);
  return ec ? path.lexically_normal() : canonical;
}

// The places and the call's path, each resolved once per check (resolving
// costs a few system calls per path component).
struct Resolved {
  std::string project;  // empty when unknown
  std::string home;     // empty when unknown
  std::optional<fs::path> path;
};

fs::path call_path(const std::string& path, const Places& places) {
  const fs::path given(path);
  return resolved(given.is_absolute() ? given : places.cwd / given);
}

bool inside(const fs::path& path, const fs::path& folder) {
  const auto relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

// A path pattern made absolute: "//x" is /x, "~/x" under home, "./x", "/x"
// and "x/y" under the project, and a bare name ("*.env") matches at any
// depth of the project, as in .gitignore.
// Empty when the place it names is unknown: then it matches nothing.
std::string absolute_pattern(std::string_view pattern, const Resolved& places) {
  if (pattern.starts_with("//")) return std::string(pattern.substr(1));
  if (pattern.starts_with("~/")) {
    if (places.home.empty()) return {};
    return places.home + std::string(pattern.substr(1));
  }
  if (places.project.empty()) return {};
  const std::string& project = places.project;
  // "./x" and "/x" are anchored at the project's root; a bare name is not.
  const bool anchored = pattern.starts_with("./") || pattern.starts_with("/");
  if (pattern.starts_with("./")) pattern.remove_prefix(2);
  if (pattern.starts_with("/")) pattern.remove_prefix(1);
  if (!anchored && pattern.find('/') == std::string_view::npos) {
    return project + "/**/" + std::string(pattern);
  }
  return project + "/" + std::string(pattern);
}

bool path_rule_matches(const Rule& rule, const Resolved& places) {
  if (!places.path) return rule.specifier.empty();
  if (rule.specifier.empty()) return true;
  const std::string path = places.path->string();
  const std::string pattern = absolute_pattern(rule.specifier, places);
  if (pattern.empty()) return false;
  // A folder pattern covers what is under it: edit(src) is edit(src/**).
  return glob_match(pattern, path, true) || glob_match(pattern + "/**", path, true);
}

// One simple command against a bash rule: a glob over the command text, or
// Claude Code's "prefix:*" for the prefix followed by nothing or a space.
bool command_matches(std::string_view specifier, std::string_view command) {
  if (specifier.ends_with(":*")) {
    const auto prefix = specifier.substr(0, specifier.size() - 2);
    return command == prefix || command.starts_with(std::string(prefix) + " ");
  }
  return glob_match(specifier, command, false);
}

bool tool_matches(const Rule& rule, const ToolCall& call) {
  const bool builtin = !call.tool.starts_with("mcp__");
  // edit(...) covers every built-in tool that changes files (edit, write);
  // read(...) every built-in one that reads.
  if (rule.tool == "edit") return builtin && call.category == Category::edit;
  if (rule.tool == "read") return builtin && call.category == Category::read;
  return glob_match(rule.tool, call.tool, false);
}

}  // namespace

bool rule_names_tool(const Rule& rule, const ToolCall& call) { return tool_matches(rule, call); }

namespace {

// Rules of one list that match a call other than bash (or a whole bash
// line, for a rule without specifier).
const Rule* first_match(const std::vector<Rule>& rules, const ToolCall& call,
                        const Resolved& places) {
  for (const auto& rule : rules) {
    if (!tool_matches(rule, call)) continue;
    if (rule.tool == "edit" || rule.tool == "read") {
      if (path_rule_matches(rule, places)) return &rule;
    } else if (rule.specifier.empty()) {
      return &rule;
    } else if (call.command && call.tool == "bash" &&
               command_matches(rule.specifier, *call.command)) {
      return &rule;
    }
  }
  return nullptr;
}

const Rule* first_command_match(const std::vector<Rule>& rules, std::string_view command) {
  for (const auto& rule : rules) {
    if (rule.tool != "bash") continue;
    if (rule.specifier.empty() || command_matches(rule.specifier, command)) return &rule;
  }
  return nullptr;
}

Decision by_rule(Verdict verdict, const Rule& rule) {
  const std::string list(to_string(verdict));
  return {.verdict = verdict,
          .reason = verdict == Verdict::deny  ? "denied by the rule " + rule.text
                    : verdict == Verdict::ask ? "the rule " + rule.text + " asks for approval"
                                              : "allowed by the rule " + rule.text,
          .rule = rule.text};
}

// The rules' answer for a bash line, or nullopt to let the mode decide.
std::optional<Decision> bash_rules(const RuleSet& rules, const ToolCall& call) {
  const ShellLine line = split_shell_line(*call.command);
  std::vector<std::string> parts = line.commands;
  parts.push_back(*call.command);  // a rule may also name the whole line
  for (const auto& list :
       {std::pair{Verdict::deny, &rules.deny}, std::pair{Verdict::ask, &rules.ask}}) {
    for (const auto& part : parts) {
      if (const Rule* rule = first_command_match(*list.second, part))
        return by_rule(list.first, *rule);
    }
  }
  // `bash` (or `bash(*)`) allows every line, whatever it hides.
  for (const auto& rule : rules.allow) {
    if (rule.tool == "bash" && (rule.specifier.empty() || rule.specifier == "*")) {
      return by_rule(Verdict::allow, rule);
    }
  }
  if (line.opaque || line.commands.empty()) return std::nullopt;
  const Rule* last = nullptr;
  for (const auto& command : line.commands) {
    last = first_command_match(rules.allow, command);
    if (last == nullptr) return std::nullopt;
  }
  return by_rule(Verdict::allow, *last);
}

std::optional<Decision> rules_decide(const RuleSet& rules, const ToolCall& call,
                                     const Resolved& places) {
  if (call.tool == "bash" && call.command) return bash_rules(rules, call);
  if (const Rule* rule = first_match(rules.deny, call, places))
    return by_rule(Verdict::deny, *rule);
  if (const Rule* rule = first_match(rules.ask, call, places)) return by_rule(Verdict::ask, *rule);
  if (const Rule* rule = first_match(rules.allow, call, places))
    return by_rule(Verdict::allow, *rule);
  return std::nullopt;
}

// Whether any rule is written under ~/: only then is home resolved.
bool names_home(const RuleSet& rules) {
  for (const auto* list : {&rules.allow, &rules.ask, &rules.deny}) {
    for (const auto& rule : *list) {
      if (rule.specifier.starts_with("~/")) return true;
    }
  }
  return false;
}

}  // namespace

Decision evaluate(const RuleSet& rules, const ToolCall& call, const Places& places) {
  // Only path rules and accept-edits look at places: a call without a path
  // resolves nothing.
  Resolved where;
  if (call.path) {
    if (!places.project.empty()) where.project = resolved(places.project).string();
    if (!places.home.empty() && names_home(rules)) where.home = resolved(places.home).string();
    where.path = call_path(*call.path, places);
  }
  auto decided = rules_decide(rules, call, where);
  if (decided && decided->verdict == Verdict::deny) return *decided;
  // Plan mode is read-only whatever the allow rules say.
  if (rules.mode == Mode::plan && call.category != Category::read) {
    return {.verdict = Verdict::deny,
            .reason = "plan mode is read-only: " + call.tool +
                      " would change things. Describe the change in the plan instead; it can "
                      "run once the plan is accepted.",
            .rule = std::nullopt};
  }
  if (decided) return *decided;
  const auto by_mode = [&](Verdict verdict) {
    return Decision{.verdict = verdict,
                    .reason = verdict == Verdict::allow
                                  ? "allowed in " + std::string(to_string(rules.mode)) + " mode"
                                  : std::string(to_string(call.category)) +
                                        " calls need approval in " +
                                        std::string(to_string(rules.mode)) + " mode",
                    .rule = std::nullopt};
  };
  if (rules.mode == Mode::auto_ || call.category == Category::read) return by_mode(Verdict::allow);
  if (rules.mode == Mode::accept_edits && call.category == Category::edit && call.path &&
      !where.project.empty() && inside(*where.path, where.project)) {
    return by_mode(Verdict::allow);
  }
  return by_mode(Verdict::ask);
}

}  // namespace ava::policy
