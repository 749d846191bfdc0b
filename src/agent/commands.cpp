// Slash commands in the agent: expanded when the input is acknowledged (so
// every client gets them: the API, the UIs, `ava -p "/name args"`), and the
// allowed-tools of the turn that takes one.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ava/prompts/builtins.hpp"
#include "core.hpp"

namespace ava::agent {
namespace {

// What a /plan turn's input ends with: the model investigates with what it
// may still use (reads), then answers with a plan the person approves.
constexpr std::string_view plan_request =
    "\n\n[Plan mode for this turn: change nothing. Investigate with read-only tools as "
    "needed; edits, commands and other changing calls are refused. Then answer with a "
    "concise numbered plan: the steps, the files each one touches, how the result will be "
    "verified, and any open questions. The user approves the plan before anything runs.]";

}  // namespace

Result<ExpandedCommand> AgentCore::expand_command(std::string_view text) const {
  const auto slash = prompts::parse_slash(text);
  if (!slash) return ExpandedCommand{};
  if (prompts::find_builtin(slash->name)) {
    if (slash->name == "plan" && !slash->arguments.empty()) {
      return ExpandedCommand{
          .name = "plan", .expansion = slash->arguments + std::string(plan_request), .plan = true};
    }
    return ExpandedCommand{.name = slash->name, .builtin = true, .arguments = slash->arguments};
  }
  const auto commands =
      prompts::discover_commands({.cwd = tool_context_.cwd, .home = options_.home});
  for (const auto& command : commands) {
    if (command.name != slash->name) continue;
    AVA_TRY(std::string expansion, prompts::expand(command, slash->arguments));
    for (const auto& rule : command.allowed_tools) {
      if (auto parsed = policy::parse_rule(rule); !parsed) {
        return fail(ErrorCode::invalid_argument,
                    fmt::format("/{} ({}): allowed-tools: {}", command.name, command.file.string(),
                                parsed.error().message));
      }
    }
    // A cloned repository's command may narrow the tools but not widen what
    // runs unasked until the user trusts the project (as its settings).
    const bool unasked = command.scope == "user" || (permissions_ && permissions_->project_trusted);
    return ExpandedCommand{.name = command.name,
                           .expansion = std::move(expansion),
                           .allowed_tools = command.allowed_tools,
                           .allowed_tools_unasked = unasked,
                           .model = command.model == "inherit" ? std::string() : command.model};
  }
  std::vector<std::string> names;
  for (const auto& builtin : prompts::builtin_commands())
    names.push_back("/" + std::string(builtin.name));
  for (const auto& command : commands) names.push_back("/" + command.name);
  return fail(ErrorCode::invalid_argument,
              fmt::format("unknown command /{} ({}); to send text that starts with \"/\", put a "
                          "space before it",
                          slash->name, "commands: " + fmt::format("{}", fmt::join(names, " "))));
}

bool AgentCore::offered_in_turn(const session::Context& context, std::string_view tool) const {
  if (context.turn_allowed_tools.empty()) return true;
  policy::ToolCall call{.tool = std::string(tool)};
  if (tool == "edit" || tool == "write") call.category = policy::Category::edit;
  if (tool == "bash") call.category = policy::Category::execute;
  if (tool.starts_with("mcp__")) call.category = policy::Category::mcp;
  for (const auto& text : context.turn_allowed_tools) {
    auto rule = policy::parse_rule(text);
    if (rule && policy::rule_names_tool(*rule, call)) return true;
  }
  return false;
}

}  // namespace ava::agent
