#include "file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "ava/base/id.hpp"
#include "ava/base/unique_fd.hpp"
#include "ava/tool/text.hpp"

namespace ava::tool::file_io {
namespace fs = std::filesystem;

fs::path resolve(const ToolContext& context, std::string_view path) {
  fs::path result(path);
  if (path == "~" || path.starts_with("~/")) {
    const char* home = std::getenv("HOME");  // NOLINT(concurrency-mt-unsafe): read-only use
    if (home != nullptr) result = fs::path(home) / std::string(path.substr(path == "~" ? 1 : 2));
  }
  if (result.is_relative()) result = context.cwd / result;
  return result.lexically_normal();
}

Result<std::string> read_file(const fs::path& path, std::size_t max_bytes) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return base::fail_errno(fmt::format("open {}", path.string()), errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return base::fail_errno("fstat", errno);
  if (S_ISDIR(info.st_mode)) {
    return fail(ErrorCode::invalid_argument, fmt::format("{} is a directory", path.string()));
  }
  if (!S_ISREG(info.st_mode)) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("{} is not a regular file", path.string()));
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size > max_bytes) {
    return fail(ErrorCode::limit_exceeded,
                fmt::format("{} is {}, over the limit of {}", path.string(),
                            text::human_bytes(size), text::human_bytes(max_bytes)));
  }
  std::string content(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t count = ::read(fd.get(), content.data() + done, size - done);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return base::fail_errno("read", errno);
    if (count == 0) break;  // shrank while reading
    done += static_cast<std::size_t>(count);
  }
  content.resize(done);
  return content;
}

namespace {

Result<void> write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t count = ::write(fd, bytes.data(), bytes.size());
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return base::fail_errno("write", errno);
    bytes.remove_prefix(static_cast<std::size_t>(count));
  }
  return {};
}

Result<void> write_temp(const fs::path& temp, std::string_view bytes, const struct stat* existing) {
  // 0666 lets the umask decide for new files, as any editor would.
  base::UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (!fd.valid()) return base::fail_errno(fmt::format("create {}", temp.string()), errno);
  AVA_TRY_VOID(write_all(fd.get(), bytes));
  if (existing != nullptr && ::fchmod(fd.get(), existing->st_mode & 07777) != 0) {
    return base::fail_errno("fchmod", errno);
  }
  if (::fsync(fd.get()) != 0) return base::fail_errno("fsync", errno);
  if (::close(fd.release()) != 0) return base::fail_errno("close", errno);
  return {};
}

}  // namespace

Result<WriteOutcome> write_file_atomic(const fs::path& path, std::string_view bytes) {
  std::error_code error;
  fs::path target = path;
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    target = fs::weakly_canonical(path, error);
    if (error) {
      return fail(ErrorCode::io, fmt::format("resolve {}: {}", path.string(), error.message()));
    }
  }
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  fs::create_directories(folder, error);
  if (error) {
    return fail(ErrorCode::io, fmt::format("create {}: {}", folder.string(), error.message()));
  }

  struct stat existing {};
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("{} exists and is not a regular file", target.string()));
  }
  const fs::path temp =
      folder / fmt::format(".{}.{}.tmp", target.filename().string(), base::new_id());
  auto written = write_temp(temp, bytes, exists ? &existing : nullptr);
  if (written && ::rename(temp.c_str(), target.c_str()) != 0) {
    written = base::fail_errno(fmt::format("rename to {}", target.string()), errno);
  }
  if (!written) {
    ::unlink(temp.c_str());
    return std::unexpected(std::move(written).error());
  }
  // The rename is durable only once the folder entry is.
  base::UniqueFd folder_fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder_fd.valid()) ::fsync(folder_fd.get());
  return WriteOutcome{.created = !exists};
}

}  // namespace ava::tool::file_io

namespace ava::tool {

std::filesystem::path resolve_path(const ToolContext& context, std::string_view path) {
  return file_io::resolve(context, path);
}

}  // namespace ava::tool
