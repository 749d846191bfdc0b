#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ava/base/error.hpp"

namespace ava::cli {

// What `ava -p` runs with (its flags), also built by commands that run one
// agent turn the same way (`ava memory dream`).
struct PromptFlags {
  bool print = false;  // -p given
  std::string prompt;
  std::vector<std::string> words;
  std::string model;
  std::string provider;
  std::string cwd;
  std::string session;
  bool continue_latest = false;
  int max_steps = 0;
  std::optional<std::string> system_prompt;
  std::string append_system_prompt;
  std::string output_format = "text";
  bool verbose = false;
  bool include_partial_messages = false;  // stream-json: the text as it streams
  int mcp_wait_ms = 5000;
  bool no_mcp = false;
  std::string permission_mode;
  std::vector<std::string> allowed_tools;
  std::vector<std::string> disallowed_tools;
  std::string sandbox;
  std::string record;  // --record DIR: a recording for `ava replay` (docs/eval.md)
  // Not flags of -p: the agent's memory tool and notes, the task tool, and
  // (when set) the only built-in tools offered (read, write, edit, bash).
  bool memory = true;
  bool subagents = true;
  std::optional<std::vector<std::string>> only_tools;
};

// One prompt, one agent in this process, its outcome printed as -p does.
Result<int> run_prompt(const PromptFlags& flags);

// A conversation at the terminal (`ava chat`, and `ava -c` or `ava
// --session ID` without -p) with the same agent options: through the
// backend that owns the home when one runs, unless `in_process`.
Result<int> run_chat(const PromptFlags& flags, bool in_process = false);

}  // namespace ava::cli
