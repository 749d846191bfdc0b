#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"

namespace ava::cli {

// `--session ID|PATH`: a path (it has a '/' or ends in .zst) or the id of a
// log in AVA_HOME/sessions. The log must exist.
Result<std::filesystem::path> resolve_session(const base::Home& home, const std::string& arg);

// `--continue`: the most recently written log in AVA_HOME/sessions whose
// session started in `cwd`. not_found when there is none.
Result<std::filesystem::path> latest_session_for(const base::Home& home,
                                                 const std::filesystem::path& cwd);

// A conversation as `ava session list` shows it, from its log's head: the
// session_started event and the first input. Subagents' logs are left out.
struct SessionSummary {
  std::string id;
  std::filesystem::path log;
  std::int64_t modified_ms = 0;  // the log's last write, Unix milliseconds
  std::string cwd;
  std::string provider;
  std::string model;
  std::string first_input;  // empty when none fits the head read
};

// The home's conversations, most recently written first; `cwd`, when not
// empty, keeps only those started there. At most `limit`.
std::vector<SessionSummary> list_sessions(const base::Home& home, const std::filesystem::path& cwd,
                                          std::size_t limit);

// True when `log` lies in the home's sessions folder (a backend may own it).
bool in_home_sessions(const base::Home& home, const std::filesystem::path& log);

}  // namespace ava::cli
