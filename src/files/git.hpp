#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"

// Git as the judge of what a project ignores: its rules (nested .gitignore
// files, info/exclude, the global excludes file, negations) are Git's to
// read. Git runs with the project's own configuration except
// core.fsmonitor, which names a command: browsing a project runs none of
// its code.
namespace ava::files::git {

// Of `paths` (relative to `folder`, a folder's with a trailing '/'), those
// Git ignores; nullopt when `folder` is not in a Git work tree (or Git is
// missing), so nothing could be judged.
boost::asio::awaitable<std::optional<std::set<std::string>>> ignored(
    const std::filesystem::path& folder, const std::vector<std::string>& paths);

struct FileList {
  std::vector<std::string> paths;  // relative to the folder
  bool truncated = false;          // more than `max_files`
};
// Tracked and untracked files that are not ignored (git ls-files); nullopt
// outside a Git work tree.
boost::asio::awaitable<std::optional<FileList>> files(const std::filesystem::path& folder,
                                                      std::size_t max_files);

}  // namespace ava::files::git
