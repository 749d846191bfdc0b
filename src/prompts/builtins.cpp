#include "ava/prompts/builtins.hpp"

#include <array>

namespace ava::prompts {
namespace {

constexpr std::array<BuiltinCommand, 9> builtins{{
    {"help", "List the slash commands", ""},
    {"clear", "Start a new conversation in this project", ""},
    {"compact", "Summarize the conversation so far to free context", "[focus]"},
    {"model", "Show the model, or switch to another", "[model | provider:model]"},
    {"plan", "Plan without changing anything; with no text, switch to plan mode", "[task]"},
    {"goal", "Set a goal reminded at every turn; \"clear\" clears it", "[goal | clear]"},
    {"memory", "List the memory notes the agent keeps", ""},
    {"context", "Show what fills the context window", ""},
    {"cost", "Show the tokens used and what they cost", ""},
}};

}  // namespace

std::span<const BuiltinCommand> builtin_commands() { return builtins; }

const BuiltinCommand* find_builtin(std::string_view name) {
  for (const auto& builtin : builtins) {
    if (builtin.name == name) return &builtin;
  }
  return nullptr;
}

}  // namespace ava::prompts
