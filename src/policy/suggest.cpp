// Rules a person may grant when approving a call, so that calls like it run
// without asking again: the command's prefix for bash, the file's folder for
// edits and reads, the tool (or its server) for MCP.
#include <algorithm>
#include <string>

#include "ava/policy/policy.hpp"
#include "policy/shell_line.hpp"

namespace ava::policy {
namespace {

namespace fs = std::filesystem;

// Characters that mean something to a rule's glob or to the rule's syntax:
// text holding them is not offered as a literal rule.
bool plain(std::string_view text) { return text.find_first_of("*?()[]") == std::string_view::npos; }

// "npm run test --watch" -> "npm run": the program and the words after it up
// to the first option, path or assignment (at most two).
std::string command_prefix(std::string_view command) {
  std::string prefix;
  int words = 0;
  std::size_t at = 0;
  while (at < command.size() && words < 2) {
    const auto end = std::min(command.find(' ', at), command.size());
    const auto word = command.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    const bool argument_like = word.find_first_of("-/=.'\"$~\\") != std::string_view::npos;
    if (words > 0 && argument_like) break;
    prefix += (prefix.empty() ? "" : " ") + std::string(word);
    ++words;
  }
  return prefix;
}

std::string folder_pattern(const fs::path& path, const Places& places) {
  std::error_code ec;
  const fs::path given = path.is_absolute() ? path : places.cwd / path;
  const fs::path resolved = fs::weakly_canonical(given.lexically_normal(), ec);
  const fs::path folder = (ec ? given.lexically_normal() : resolved).parent_path();
  const fs::path project = fs::weakly_canonical(places.project, ec);
  if (!places.project.empty()) {
    const auto relative = folder.lexically_relative(project);
    if (!relative.empty() && *relative.begin() != "..") {
      if (relative == ".") return "./**";
      return relative.generic_string() + "/**";
    }
  }
  return "/" + folder.generic_string() + "/**";  // "//abs/**": an absolute path
}

}  // namespace

std::vector<std::string> suggest_rules(const ToolCall& call, const Places& places) {
  std::vector<std::string> rules;
  const auto add = [&](std::string rule) {
    if (std::ranges::find(rules, rule) == rules.end()) rules.push_back(std::move(rule));
  };
  if (call.tool == "bash" && call.command) {
    const ShellLine line = split_shell_line(*call.command);
    // Nothing narrower than `bash` can ever allow a line that hides what it
    // runs, so none is offered.
    if (line.opaque) return rules;
    for (const auto& command : line.commands) {
      const std::string prefix = command_prefix(command);
      if (prefix.empty() || !plain(prefix)) continue;
      add("bash(" + prefix + ":*)");
    }
    return rules;
  }
  if (call.path && !call.tool.starts_with("mcp__") &&
      (call.category == Category::edit || call.category == Category::read)) {
    const std::string pattern = folder_pattern(*call.path, places);
    if (plain(pattern.substr(0, pattern.size() - 2))) {
      add(std::string(call.category == Category::edit ? "edit(" : "read(") + pattern + ")");
    }
    return rules;
  }
  if (call.tool.starts_with("mcp__")) {
    add(call.tool);
    const auto server_end = call.tool.find("__", 5);
    if (server_end != std::string::npos) add(call.tool.substr(0, server_end) + "__*");
    return rules;
  }
  if (plain(call.tool)) add(call.tool);
  return rules;
}

}  // namespace ava::policy
