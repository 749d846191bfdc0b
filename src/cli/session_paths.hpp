#pragma once

#include <filesystem>
#include <string>

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

// True when `log` lies in the home's sessions folder (a backend may own it).
bool in_home_sessions(const base::Home& home, const std::filesystem::path& log);

}  // namespace ava::cli
