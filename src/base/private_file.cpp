#include "ava/base/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ava::base {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Result<void> write_all(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    const ssize_t put = ::write(fd, data.data(), data.size());
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return fail_errno("write " + path.string(), errno);
    data.remove_prefix(static_cast<std::size_t>(put));
  }
  return {};
}

void sync_folder(const std::filesystem::path& path) {
  Fd dir{::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd >= 0) (void)::fsync(dir.fd);
}

// A synced 0600 temporary file beside `path` holding `bytes`; its name.
Result<std::string> write_temporary(const std::filesystem::path& path, std::string_view bytes) {
  std::string pattern = path.string() + ".tmp-XXXXXX";
  Fd temp{::mkstemp(pattern.data())};  // created 0600
  if (temp.fd < 0) return fail_errno("create a temporary file beside " + path.string(), errno);
  auto written = [&]() -> Result<void> {
    if (::fchmod(temp.fd, 0600) != 0) return fail_errno("chmod " + pattern, errno);
    AVA_TRY_VOID(write_all(temp.fd, bytes, pattern));
    if (::fsync(temp.fd) != 0) return fail_errno("fsync " + pattern, errno);
    return {};
  }();
  if (!written) {
    ::unlink(pattern.c_str());
    return std::unexpected(written.error());
  }
  return pattern;
}

}  // namespace

Result<void> write_private_file(const std::filesystem::path& path, std::string_view bytes) {
  AVA_TRY(const std::string temp, write_temporary(path, bytes));
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return fail_errno("rename to " + path.string(), error);
  }
  sync_folder(path);
  return {};
}

Result<void> create_private_file(const std::filesystem::path& path, std::string_view bytes) {
  AVA_TRY(const std::string temp, write_temporary(path, bytes));
  // link() fails if the name exists, where rename() would replace it.
  const int linked = ::link(temp.c_str(), path.c_str());
  const int error = errno;
  ::unlink(temp.c_str());
  if (linked != 0) {
    if (error == EEXIST) return fail(ErrorCode::already_exists, path.string() + " already exists");
    return fail_errno("create " + path.string(), error);
  }
  sync_folder(path);
  return {};
}

Result<std::string> read_file_limited(const std::filesystem::path& path, std::size_t limit) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == ENOENT) return fail(ErrorCode::not_found, path.string() + " does not exist");
    return fail_errno("open " + path.string(), errno);
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(file.fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail_errno("read " + path.string(), errno);
    if (got == 0) return text;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > limit) {
      return fail(ErrorCode::limit_exceeded,
                  path.string() + " is larger than " + std::to_string(limit) + " bytes");
    }
  }
}

}  // namespace ava::base
