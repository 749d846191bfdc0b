#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ava::prompts {

inline std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// At most `limit` bytes of a regular file (a FIFO or a device is not read),
// cut on a character boundary, with `size` set to the whole file's size;
// nullopt if it cannot be read.
std::optional<std::string> read_head(const std::filesystem::path& file, std::size_t limit,
                                     std::size_t& size);

}  // namespace ava::prompts
