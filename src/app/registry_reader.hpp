#pragma once

#include <string_view>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/protocol/wire.hpp"

namespace ava::app {

struct RegistryContents {
  std::vector<protocol::Project> projects;
  std::vector<protocol::Conversation> conversations;
};

// web.json's text (the shapes of protocol::to_json); unknown fields are
// skipped. `origin` names the file in errors.
Result<RegistryContents> parse_registry(std::string_view text, std::string_view origin);

}  // namespace ava::app
