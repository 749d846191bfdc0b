#include "ava/machine/ownership.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <string>

namespace ava::machine {

Result<std::optional<Owner>> probe_owner(const base::Home& home) {
  const auto path = home.file(owner_lock_name);
  const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<Owner>();
    return base::fail_errno("open " + path.string(), errno);
  }
  // A shared lock is granted unless someone holds the exclusive one.
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) {
    ::flock(fd.get(), LOCK_UN);
    return std::optional<Owner>();
  }
  const int error = errno;
  Owner owner;
  std::array<char, 32> buffer{};
  const ssize_t count = ::read(fd.get(), buffer.data(), buffer.size() - 1);
  if (error != EWOULDBLOCK) return base::fail_errno("lock " + path.string(), error);
  if (count > 0) {
    std::from_chars(buffer.data(), buffer.data() + count, owner.pid);
  }
  return std::optional<Owner>(owner);
}

Result<OwnerLock> OwnerLock::acquire(const base::Home& home) {
  const auto path = home.file(owner_lock_name);
  base::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return base::fail_errno("open " + path.string(), errno);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    std::array<char, 32> buffer{};
    const ssize_t count = ::read(fd.get(), buffer.data(), buffer.size() - 1);
    if (error != EWOULDBLOCK) return base::fail_errno("lock " + path.string(), error);
    pid_t pid = 0;
    if (count > 0) std::from_chars(buffer.data(), buffer.data() + count, pid);
    return fail(ErrorCode::conflict,
                home.root().string() + " is owned by another Ava API server (pid " +
                    std::to_string(pid) +
                    "); stop it with `ava backend stop` or use another AVA_HOME");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) != 0 || ::pwrite(fd.get(), pid.data(), pid.size(), 0) < 0) {
    return base::fail_errno("write " + path.string(), errno);
  }
  return OwnerLock(std::move(fd));
}

}  // namespace ava::machine
