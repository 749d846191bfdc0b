#include "ava/files/paths.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "ava/base/utf8.hpp"

namespace ava::files {
namespace {

std::vector<std::string_view> parts_of(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const auto end = slash == std::string_view::npos ? path.size() : slash;
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Result<base::UniqueFd> opened(int fd, std::string_view relative) {
  if (fd >= 0) return base::UniqueFd(fd);
  const int error = errno;
  const std::string name = relative.empty() ? std::string(".") : std::string(relative);
  switch (error) {
    case ENOENT:
    case ENOTDIR: return fail(ErrorCode::not_found, "no such file in the project: " + name);
    case EXDEV:
    case ELOOP:
      return fail(ErrorCode::permission_denied,
                  "the path leads outside the project through a link: " + name);
    case EACCES:
    case EPERM: return fail(ErrorCode::permission_denied, "not readable: " + name);
    default: return base::fail_errno("open " + name, error);
  }
}

// Where openat2 is missing (old kernels, some container filters), each part
// is opened on its own without following links: an inside link is refused
// too, which is the safe side.
int open_part_by_part(int root, std::string_view relative, int flags) {
  if (relative.empty()) return ::openat(root, ".", flags | O_CLOEXEC);
  base::UniqueFd directory(::openat(root, ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!directory.valid()) return -1;
  const auto parts = parts_of(relative);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string part(parts[i]);
    base::UniqueFd next(
        ::openat(directory.get(), part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return -1;
    directory = std::move(next);
  }
  const std::string last(parts.back());
  return ::openat(directory.get(), last.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
}

}  // namespace

Result<std::string> clean_relative(std::string_view path) {
  if (path.size() > max_path_bytes) {
    return fail(ErrorCode::invalid_argument, "the path is longer than 4096 bytes");
  }
  if (path.find('\0') != std::string_view::npos || !base::utf8::valid(path)) {
    return fail(ErrorCode::invalid_argument, "the path must be UTF-8 text without NUL");
  }
  if (!path.empty() && path.front() == '/') {
    return fail(ErrorCode::invalid_argument, "the path must be relative to the project's folder");
  }
  std::string clean;
  for (const auto part : parts_of(path)) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return fail(ErrorCode::invalid_argument, "the path may not contain \"..\"");
    if (!clean.empty()) clean += '/';
    clean += part;
  }
  return clean;
}

Result<ProjectRoot> ProjectRoot::open(const std::filesystem::path& folder) {
  base::UniqueFd fd(::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return fail(ErrorCode::not_found, "the project's folder is gone: " + folder.string());
    }
    return base::fail_errno("open " + folder.string(), errno);
  }
  return ProjectRoot(folder, std::move(fd));
}

Result<base::UniqueFd> ProjectRoot::open_beneath(std::string_view relative, int flags) const {
  const std::string name = relative.empty() ? std::string(".") : std::string(relative);
  open_how how{};
  // openat2 refuses flags that mean nothing with O_PATH.
  if ((flags & O_PATH) == 0) flags |= O_NOCTTY;
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, fd_.get(), name.c_str(), &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    return opened(open_part_by_part(fd_.get(), relative, flags), relative);
  }
  return opened(static_cast<int>(fd), relative);
}

}  // namespace ava::files
