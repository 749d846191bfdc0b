#pragma once

#include <string>
#include <string_view>

namespace ava::base {

// ASCII lower case, for the case-insensitive parts of protocols (header
// names and values such as content types, host names, auth schemes).
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace ava::base
