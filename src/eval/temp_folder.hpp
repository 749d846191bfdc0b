#pragma once

#include <filesystem>
#include <string>

#include "ava/base/error.hpp"

namespace ava::eval {

// A private folder under the system's temporary directory, removed with
// everything in it when the object goes.
class TempFolder {
 public:
  static Result<TempFolder> create(const std::string& prefix);
  TempFolder(TempFolder&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempFolder& operator=(TempFolder&&) = delete;
  TempFolder(const TempFolder&) = delete;
  ~TempFolder();
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TempFolder(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

}  // namespace ava::eval
