#include "session/sys.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

namespace ava::session {

Result<void> lock_exclusive(int fd, const std::filesystem::path& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return {};
  if (errno == EWOULDBLOCK) {
    return fail(ErrorCode::conflict,
                fmt::format("session log {} is already open by another writer", path.string()));
  }
  return base::fail_errno("lock " + path.string(), errno);
}

Result<std::string> read_fd(int fd) {
  std::string bytes;
  struct stat info {};
  if (::fstat(fd, &info) == 0 && info.st_size > 0) bytes.reserve(info.st_size);
  char buffer[1 << 16];
  off_t offset = 0;
  while (true) {
    const ssize_t got = ::pread(fd, buffer, sizeof buffer, offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return base::fail_errno("read session log", errno);
    if (got == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
    offset += got;
  }
  return bytes;
}

Result<void> sync_directory(const std::filesystem::path& dir) {
  const auto name = dir.empty() ? std::filesystem::path(".") : dir;
  const int fd = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return base::fail_errno("open directory " + name.string(), errno);
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (result != 0) return base::fail_errno("fsync directory " + name.string(), error);
  return {};
}

Result<std::filesystem::path> save_torn_bytes(const std::filesystem::path& log,
                                              std::string_view bytes) {
  std::string stem = log.filename().string();
  constexpr std::string_view kSuffix = ".jsonl.zst";
  if (stem.ends_with(kSuffix)) stem.resize(stem.size() - kSuffix.size());
  for (int n = 1; n < 10000; ++n) {
    auto target = log.parent_path() / fmt::format("{}.torn-{}", stem, n);
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return base::fail_errno("create " + target.string(), errno);
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) {
        const int error = errno;
        ::close(fd);
        return base::fail_errno("write " + target.string(), error);
      }
      done += static_cast<std::size_t>(wrote);
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) return base::fail_errno("fsync " + target.string(), errno);
    AVA_TRY_VOID(sync_directory(log.parent_path()));
    return target;
  }
  return fail(ErrorCode::conflict, "too many torn files beside " + log.string());
}

}  // namespace ava::session
