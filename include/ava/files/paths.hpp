#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"
#include "ava/base/unique_fd.hpp"

// A project's files as people browse them (issue: desktop part 2): the tree,
// previews, quick open and change notices. Every path a client names is
// relative to the project's folder and is opened beneath it by the kernel
// (openat2 RESOLVE_BENEATH), so no spelling and no symbolic link reaches a
// file outside; a string prefix check is never the guard.
namespace ava::files {

// The most bytes of a relative path a client may send.
inline constexpr std::size_t max_path_bytes = 4096;

// A client's path made canonical: "a/b/c" (no leading or doubled slash, no
// "." part), "" for the project's folder itself. Refused: absolute paths,
// "..", NUL, invalid UTF-8, longer than max_path_bytes.
Result<std::string> clean_relative(std::string_view path);

// The project's folder, held open so every lookup starts from the same
// directory even if the path is renamed meanwhile.
class ProjectRoot {
 public:
  static Result<ProjectRoot> open(const std::filesystem::path& folder);

  const std::filesystem::path& folder() const { return folder_; }
  int fd() const { return fd_.get(); }

  // Opens `relative` (clean_relative's form) beneath the folder. A symbolic
  // link is followed only while it stays inside; one that leaves is
  // permission_denied, a missing file not_found. `flags` as for open(2).
  Result<base::UniqueFd> open_beneath(std::string_view relative, int flags) const;

 private:
  ProjectRoot(std::filesystem::path folder, base::UniqueFd fd)
      : folder_(std::move(folder)), fd_(std::move(fd)) {}
  std::filesystem::path folder_;
  base::UniqueFd fd_;
};

}  // namespace ava::files
