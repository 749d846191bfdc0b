#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

// Slash commands: prompt templates users keep as Markdown files, in Claude
// Code's format (docs/workflows.md). `/review src/a.cpp` becomes the body of
// review.md with the arguments put in.
//   AVA_HOME/commands/<name>.md                the user's, everywhere
//   <repo>/.claude/commands/<name>.md          a project's, as Claude Code keeps them
//   <repo>/.ava/commands/<name>.md             a project's (wins a clash)
// A folder one level down makes a namespace: frontend/test.md is
// /frontend:test. Front matter: description, argument-hint, allowed-tools
// (permission rules, e.g. "Bash(git diff:*), Read"), model.
namespace ava::prompts {

struct Command {
  std::string name;  // "review", "frontend:test"
  std::string description;
  std::string argument_hint;
  std::vector<std::string> allowed_tools;  // as written, one rule each
  std::string model;
  std::filesystem::path file;
  std::string scope;  // "user" or "project"
};

struct CommandPlaces {
  std::filesystem::path cwd;
  std::filesystem::path home;  // AVA_HOME; empty: no user commands
};

// Every command, sorted by name; a project's wins over the user's.
std::vector<Command> discover_commands(const CommandPlaces& places);

// "/name rest" when `text` is in that form (a name of letters, digits, _ -
// and :, then a space or the end); nullopt otherwise, e.g. for "/usr/bin is
// missing", which is text.
struct SlashInput {
  std::string name;
  std::string arguments;  // trimmed
};
std::optional<SlashInput> parse_slash(std::string_view text);

// $ARGUMENTS and {args}: all the arguments; $1 .. $9: one each, split like a
// shell does words (quotes group, no expansion). A template without any of
// them gets the arguments appended on a line of their own.
std::string substitute(std::string_view body, std::string_view arguments);

// The command's body with the arguments put in; an error if the file went
// away or grew past the limit.
Result<std::string> expand(const Command& command, std::string_view arguments);

// Allowed-tools as written ("Bash(git add:*), Bash(git status:*), Read"):
// split at the commas between rules, not inside parentheses.
std::vector<std::string> split_rules(std::string_view text);

}  // namespace ava::prompts
