#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ava::test {

// The path of a recorded fixture under tests/fixtures/ (AVA_FIXTURES_DIR).
inline std::string fixture_path(std::string_view relative) {
  return std::string(AVA_FIXTURES_DIR "/") + std::string(relative);
}

// The bytes of a fixture. A missing or unreadable file throws with the file's
// path, so the test that needed it fails saying which data is missing.
inline std::string read_fixture(std::string_view relative) {
  const std::string path = fixture_path(relative);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read test fixture " + path + ": " + std::strerror(errno) +
                             " (fixtures live in tests/fixtures/, see its README)");
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace ava::test
