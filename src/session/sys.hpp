#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"

namespace ava::session {

// The syscalls the log needs, each wrapped once.

// flock(LOCK_EX | LOCK_NB): one writer per log, across processes.
Result<void> lock_exclusive(int fd, const std::filesystem::path& path);
// The whole file behind fd, read with pread from offset 0.
Result<std::string> read_fd(int fd);
// Makes a new directory entry durable.
Result<void> sync_directory(const std::filesystem::path& dir);
// Writes `bytes` to a new file <id>.torn-<n> beside the log (n = 1, 2, ...),
// fsynced, and returns its path.
Result<std::filesystem::path> save_torn_bytes(const std::filesystem::path& log,
                                              std::string_view bytes);

}  // namespace ava::session
