#pragma once

#include <map>
#include <optional>
#include <string>

#include "ava/base/home.hpp"

namespace ava::test {

// An environment for code that takes a base::EnvLookup: only these
// variables exist, whatever the process environment holds.
inline base::EnvLookup fake_env(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> std::optional<std::string> {
    auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

}  // namespace ava::test
