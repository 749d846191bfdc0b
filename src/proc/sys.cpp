#include "sys.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <mutex>

#include "ava/base/unique_fd.hpp"

namespace ava::proc {

namespace sys {

Result<Pipe> make_pipe() {
  std::array<int, 2> fds{-1, -1};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return base::fail_errno("pipe2", errno);
  return Pipe{base::UniqueFd(fds[0]), base::UniqueFd(fds[1])};
}

Result<base::UniqueFd> pidfd_open(pid_t pid) {
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return base::fail_errno("pidfd_open", errno);
  return base::UniqueFd(static_cast<int>(fd));
}

void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& text : strings) out.push_back(text.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace sys
}  // namespace ava::proc
