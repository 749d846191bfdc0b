#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"
#include "ava/tool/tool.hpp"

// Private file helpers of the fs tools.
namespace ava::tool::file_io {

// A path from the model: absolute, "~/..." (the user's home) or relative to
// the context's working folder.
std::filesystem::path resolve(const ToolContext& context, std::string_view path);

// Reads a whole regular file, refusing one larger than max_bytes
// (limit_exceeded).
Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes);

struct WriteOutcome {
  bool created = false;  // the file did not exist before
};

// Replaces the file's content atomically: a temporary file in the same
// folder, fsync, rename over the target, fsync of the folder. An existing
// file keeps its permission bits; a symlink is followed and its target
// replaced. Parent folders are created.
Result<WriteOutcome> write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

}  // namespace ava::tool::file_io
