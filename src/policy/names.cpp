#include <cctype>
#include <string>

#include "ava/policy/policy.hpp"

namespace ava::policy {

std::string_view to_string(Category category) {
  switch (category) {
    case Category::read: return "read";
    case Category::edit: return "edit";
    case Category::execute: return "execute";
    case Category::network: return "network";
    case Category::mcp: return "mcp";
  }
  return "mcp";
}

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::ask: return "ask";
    case Mode::accept_edits: return "accept-edits";
    case Mode::plan: return "plan";
    case Mode::auto_: return "auto";
  }
  return "ask";
}

Result<Mode> parse_mode(std::string_view text) {
  for (const Mode mode : {Mode::ask, Mode::accept_edits, Mode::plan, Mode::auto_}) {
    if (text == to_string(mode)) return mode;
  }
  // Claude Code's names for the same modes.
  if (text == "default") return Mode::ask;
  if (text == "acceptEdits") return Mode::accept_edits;
  if (text == "bypassPermissions") return Mode::auto_;
  return fail(ErrorCode::invalid_argument, "unknown permission mode \"" + std::string(text) +
                                               "\": use ask, accept-edits, plan or auto");
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::allow: return "allow";
    case Verdict::ask: return "ask";
    case Verdict::deny: return "deny";
  }
  return "ask";
}

Result<Rule> parse_rule(std::string_view text) {
  constexpr std::size_t max_rule = 4096;
  const auto refuse = [&](std::string_view why) {
    return fail(
        ErrorCode::invalid_argument,
        "permission rule \"" + std::string(text.substr(0, 200)) + "\": " + std::string(why));
  };
  if (text.empty()) return refuse("empty");
  if (text.size() > max_rule) return refuse("longer than 4,096 characters");
  Rule rule{.text = std::string(text), .tool = {}, .specifier = {}};
  std::string_view name = text;
  if (const auto open = text.find('('); open != std::string_view::npos) {
    if (text.back() != ')') return refuse("a specifier must end with ')'");
    name = text.substr(0, open);
    rule.specifier = std::string(text.substr(open + 1, text.size() - open - 2));
    if (rule.specifier.empty()) return refuse("empty parentheses; write the tool name alone");
  }
  if (name.empty()) return refuse("no tool name");
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) == 0 && c != '_' && c != '-' && c != '*') {
      return refuse("a tool name holds letters, digits, '_', '-' and '*' only");
    }
    rule.tool += static_cast<char>(std::tolower(byte));
  }
  if (rule.tool == "multiedit") rule.tool = "edit";  // Claude Code's other editing tool
  return rule;
}

}  // namespace ava::policy
