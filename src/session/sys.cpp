#include "session/sys.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older C libraries lack the name
#endif

namespace ava::session {

Result<void> lock_exclusive(int fd, const std::filesystem::path& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return {};
  if (errno == EWOULDBLOCK) {
    return fail(ErrorCode::conflict,
                fmt::format("session log {} is already open by another writer", path.string()));
  }
  return base::fail_errno("lock " + path.string(), errno);
}

void prefault(void* data, std::size_t bytes) {
  static const auto kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (bytes < 64 * kPage) return;  // not worth a syscall
  auto* first = static_cast<char*>(data);
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(first) % kPage;
  const std::size_t skip = misalignment == 0 ? 0 : kPage - misalignment;
  const std::size_t length = (bytes - skip) / kPage * kPage;
  // A hint only: older kernels refuse it (EINVAL) and the pages then fault in
  // one by one as before.
  (void)::madvise(first + skip, length, MADV_POPULATE_WRITE);
}

Result<std::string> read_fd(int fd) {
  struct stat info {};
  const std::size_t expected =
      ::fstat(fd, &info) == 0 && info.st_size > 0 ? static_cast<std::size_t>(info.st_size) : 0;
  std::string bytes;
  bytes.reserve(expected);
  prefault(bytes.data(), expected);
  // Read straight into the string up to the size seen, then on until EOF: a
  // live log may have grown since fstat.
  std::optional<int> error;
  bytes.resize_and_overwrite(expected, [&](char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
      const ssize_t got = ::pread(fd, data + done, size - done, static_cast<off_t>(done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        error = errno;
        break;
      }
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  });
  if (error) return base::fail_errno("read session log", *error);
  char buffer[1 << 16];
  auto offset = static_cast<off_t>(bytes.size());
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
