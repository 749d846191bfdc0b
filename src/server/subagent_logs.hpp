#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace ava::server {

// The logs of the subagents a conversation's log started, and of theirs, as
// far as the logs can be read: each found through the usage roll-up or the
// `task` result that names it, and kept only when its own session_start
// names its parent. Ids are checked before they become paths, so a log
// cannot point outside its folder or at another conversation's log.
std::vector<std::filesystem::path> subagent_logs(const std::filesystem::path& log);

// A session id that is safe as a file name under sessions/: 1-64 of
// `A-Z a-z 0-9 -`. Ids from a request or a log are checked with this first.
bool plain_session_id(std::string_view id);

}  // namespace ava::server
