#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Subagent definitions (docs/workflows.md): what the `task` tool may start.
// Two are built in, `explore` (read-only research) and `plan` (no tools);
// users add their own as Markdown files in Claude Code's format:
//   AVA_HOME/agents/<name>.md          the user's
//   <repo>/.claude/agents/<name>.md    a project's, as Claude Code keeps them
//   <repo>/.ava/agents/<name>.md       a project's (wins a clash)
// Front matter: name, description, tools ("Read, Bash" or "read, bash";
// left out: every tool but `task`), model. The body is the subagent's
// instructions.
namespace ava::prompts {

struct AgentDefinition {
  std::string name;
  std::string description;
  // Tool names as the agent knows them (read, write, edit, bash, mcp__…),
  // lower case; Claude Code's names are mapped (Read → read, MultiEdit →
  // edit). nullopt: every tool but task.
  std::optional<std::vector<std::string>> tools;
  bool read_only = false;  // explore: reads, and bash only in a read-only sandbox
  std::string model;       // empty or "inherit": the parent's
  std::string instructions;
  std::filesystem::path file;  // empty for a built-in
  std::string scope;           // "builtin", "user" or "project"
};

struct AgentPlaces {
  std::filesystem::path cwd;
  std::filesystem::path home;  // AVA_HOME; empty: no user agents
};

// The built-ins, then the files' agents sorted by name (a project's wins
// over the user's; neither replaces a built-in).
std::vector<AgentDefinition> discover_agents(const AgentPlaces& places);

// A tool name as a definition's `tools` line writes it, in Ava's terms;
// empty for one Ava does not have (Grep, Glob, WebFetch, ...).
std::string agent_tool_name(std::string_view written);

}  // namespace ava::prompts
