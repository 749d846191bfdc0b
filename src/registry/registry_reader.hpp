#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/protocol/wire.hpp"

namespace ava::registry {

struct RegistryContents {
  std::vector<protocol::Project> projects;
  // By id; of two entries with one id the first is kept.
  std::map<std::string, protocol::Conversation, std::less<>> conversations;
};

// web.json's text (the shapes of protocol::to_json); unknown fields are
// skipped. `origin` names the file in errors.
Result<RegistryContents> parse_registry(std::string_view text, std::string_view origin);
// The same, read from `file` as it is parsed (not_found when it is missing;
// limit_exceeded past `limit` bytes).
Result<RegistryContents> read_registry(const std::filesystem::path& file, std::size_t limit);

}  // namespace ava::registry
