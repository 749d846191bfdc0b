#pragma once

// For tests of code that writes with app::send_batch: the two ways a batch
// can go out, and reading what arrived at a socket.

#include <sys/socket.h>

#include <array>
#include <string>

#include "httpd/socket_batch.hpp"

namespace ava::test {

// While it lives, batches use io_uring only if `io_uring` (and the host
// has it); the default comes back afterwards. With Catch2:
//   SendPath path(GENERATE(true, false));
class SendPath {
 public:
  explicit SendPath(bool io_uring) { httpd::allow_io_uring_sends(io_uring); }
  ~SendPath() { httpd::allow_io_uring_sends(true); }
  SendPath(const SendPath&) = delete;
  SendPath& operator=(const SendPath&) = delete;
};

// Everything the socket holds now, without waiting.
inline std::string read_available(int fd) {
  std::string out;
  std::array<char, 65536> chunk{};
  for (;;) {
    const ssize_t got = ::recv(fd, chunk.data(), chunk.size(), MSG_DONTWAIT);
    if (got <= 0) return out;
    out.append(chunk.data(), static_cast<std::size_t>(got));
  }
}

}  // namespace ava::test
