#pragma once

#include <span>
#include <string_view>

// The slash commands every conversation has (docs/workflows.md). The agent
// answers them itself, except /plan TEXT, which becomes a read-only turn,
// and /clear, which the clients turn into a new conversation. A template
// file of the same name does not replace one.
namespace ava::prompts {

struct BuiltinCommand {
  std::string_view name;
  std::string_view description;
  std::string_view argument_hint;
};

std::span<const BuiltinCommand> builtin_commands();
const BuiltinCommand* find_builtin(std::string_view name);

}  // namespace ava::prompts
