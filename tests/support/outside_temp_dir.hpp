#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

// Sandbox tests need a folder that no temp folder contains (a sandbox lets
// commands write the temp folders, so a refused write there proves nothing).
namespace ava::test {

// Whether `path` is under a folder the sandbox always lets commands write.
inline bool under_temp(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::vector<fs::path> temps = {"/tmp", "/var/tmp", "/dev/shm"};
  if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir == '/') {
    temps.emplace_back(tmpdir);
  }
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(path, ec);
  for (const auto& temp : temps) {
    const fs::path root = fs::weakly_canonical(temp, ec);
    const auto relative = real.lexically_relative(root);
    if (!relative.empty() && *relative.begin() != "..") return true;
  }
  return false;
}

// A fresh folder outside every temp folder: under the build tree, or (for a
// checkout under /tmp) under ~/.cache; unusable() when neither is. Removed
// with everything in it.
class OutsideTempDir {
 public:
  OutsideTempDir() {
    namespace fs = std::filesystem;
    std::vector<fs::path> bases = {fs::path(AVA_BINARY_DIR) / "Testing"};
    if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
      bases.push_back(fs::path(home) / ".cache" / "ava-sandbox-tests");
    }
    for (const auto& base : bases) {
      if (under_temp(base)) continue;
      std::error_code ec;
      fs::create_directories(base, ec);
      std::string pattern = (base / "sandbox-XXXXXX").string();
      if (!ec && ::mkdtemp(pattern.data()) != nullptr) {
        path_ = pattern;
        return;
      }
    }
  }
  ~OutsideTempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  OutsideTempDir(const OutsideTempDir&) = delete;
  OutsideTempDir& operator=(const OutsideTempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  bool usable() const { return !path_.empty(); }

 private:
  std::filesystem::path path_;
};

}  // namespace ava::test
