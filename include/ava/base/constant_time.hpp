#pragma once

#include <cstddef>
#include <string_view>

namespace ava::base {

// Compares secrets in time that depends only on the expected length, so
// response timing does not reveal how much of a guessed token was right.
inline bool constant_time_equal(std::string_view given, std::string_view expected) {
  unsigned char difference = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const char g = i < given.size() ? given[i] : '\0';
    difference |= static_cast<unsigned char>(g ^ expected[i]);
  }
  return difference == 0;
}

}  // namespace ava::base
