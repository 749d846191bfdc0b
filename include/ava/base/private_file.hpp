#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"

namespace ava::base {

// Replaces `path` with `bytes`, owner-only (0600): written to a temporary
// file beside it, synced and renamed into place, then the folder synced. A
// crash leaves the old file or the new one, never half of one.
Result<void> write_private_file(const std::filesystem::path& path, std::string_view bytes);

// Creates `path` with `bytes` (0600, durable) only if it does not exist yet;
// already_exists otherwise. Two processes racing get exactly one winner.
Result<void> create_private_file(const std::filesystem::path& path, std::string_view bytes);

// The whole file, refusing one larger than `limit` bytes.
Result<std::string> read_file_limited(const std::filesystem::path& path, std::size_t limit);

}  // namespace ava::base
