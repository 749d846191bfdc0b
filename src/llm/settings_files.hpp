#pragma once

// Private helpers shared by settings.cpp and auth.cpp.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/base/unique_fd.hpp"
#include "ava/llm/settings.hpp"

namespace ava::llm::detail {

// Neither file is ever legitimately large; a bigger one is a mistake.
inline constexpr std::size_t settings_file_limit = std::size_t{1024} * 1024;

// Parses JSON, naming `origin` in the error. With `secret` the parser's
// "last read" excerpt is left out, because it may quote a key.
Result<nlohmann::json> parse_json_document(std::string_view text, std::string_view origin,
                                           bool secret);

// A provider name as settings.json and auth.json accept it: letters, digits,
// '.', '_' and '-'.
bool valid_provider_name(std::string_view name);

// An exclusive flock on "<file>.lock" beside `file` (created 0600), held
// while a change reads, modifies and replaces the file, so every process on
// the home serializes its changes; released when destroyed.
struct FileLock {
  base::UniqueFd fd;  // closing it releases the lock
};
Result<FileLock> lock_beside(const std::filesystem::path& file);

// auth.json: the parsed document ({} when the file does not exist), after
// the ownership and permission checks.
Result<nlohmann::json> read_auth_document(const std::filesystem::path& path);
// Fills settings.keys from auth.json.
Result<void> load_auth_keys(const std::filesystem::path& path, Settings& settings);

}  // namespace ava::llm::detail
