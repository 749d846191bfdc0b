#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"

namespace ava::session {

// The syscalls the log needs, each wrapped once.

// flock(LOCK_EX | LOCK_NB): one writer per log, across processes.
Result<void> lock_exclusive(int fd, const std::filesystem::path& path);
// Asks the kernel to map in the pages of a large buffer about to be filled,
// in one call: on some VMs a first-touch page fault costs ~17 us, and a
// decoded log touches thousands of pages. Small buffers are left alone.
void prefault(void* data, std::size_t bytes);
// The whole file behind fd, read with pread from offset 0.
Result<std::string> read_fd(int fd);
// Makes a new directory entry durable.
Result<void> sync_directory(const std::filesystem::path& dir);
// Writes `bytes` to a new file <id>.torn-<n> beside the log (n = 1, 2, ...),
// fsynced, and returns its path.
Result<std::filesystem::path> save_torn_bytes(const std::filesystem::path& log,
                                              std::string_view bytes);

}  // namespace ava::session
