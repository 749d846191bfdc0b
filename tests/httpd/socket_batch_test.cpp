// send_batch on real sockets, through io_uring and through plain sends.
#include "httpd/socket_batch.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "send_paths.hpp"

namespace httpd = ava::httpd;
namespace test = ava::test;

namespace {

struct SocketPair {
  SocketPair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds.data()) == 0); }
  ~SocketPair() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
  void close_peer() {
    ::close(fds[1]);
    fds[1] = -1;
  }
  std::string read_available() const { return test::read_available(fds[1]); }
  std::array<int, 2> fds{-1, -1};
};

}  // namespace

TEST_CASE("a batch of sends reports what each socket took", "[httpd][socket_batch]") {
  const bool io_uring = GENERATE(true, false);
  INFO("io_uring sends allowed: " << io_uring);
  const test::SendPath path(io_uring);
  if (!io_uring) CHECK_FALSE(httpd::io_uring_sends_available());
  if (io_uring && !httpd::io_uring_sends_available())
    WARN("io_uring is not available here: both runs take the plain path");

  // More sockets than one ring submission holds, so the batch is split.
  constexpr std::size_t count = 300;
  std::vector<SocketPair> pairs(count);
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < count; ++i) texts.push_back("frame " + std::to_string(i) + "\n");
  // One peer is gone; one socket takes only part of a large frame.
  pairs[7].close_peer();
  const int small_buffer = 4096;
  REQUIRE(::setsockopt(pairs[9].fds[0], SOL_SOCKET, SO_SNDBUF, &small_buffer,
                       sizeof small_buffer) == 0);
  texts[9] = std::string(1 << 20, 'L');

  std::vector<httpd::SocketSend> sends;
  for (std::size_t i = 0; i < count; ++i)
    sends.push_back({.socket = pairs[i].fds[0], .bytes = texts[i]});
  httpd::send_batch(sends);

  for (std::size_t i = 0; i < count; ++i) {
    INFO("socket " << i);
    if (i == 7) {
      CHECK(sends[i].taken == -1);
    } else if (i == 9) {
      CHECK(sends[i].taken > 0);
      CHECK(sends[i].taken < static_cast<std::ptrdiff_t>(texts[i].size()));
    } else {
      CHECK(sends[i].taken == static_cast<std::ptrdiff_t>(texts[i].size()));
      CHECK(pairs[i].read_available() == texts[i]);
    }
  }

  // A full socket takes nothing and says so at once.
  const std::string more(1 << 20, 'M');
  std::array<httpd::SocketSend, 1> full{{{.socket = pairs[9].fds[0], .bytes = more}}};
  httpd::send_batch(full);
  CHECK(full[0].taken == 0);
  CHECK(pairs[9].read_available().size() == static_cast<std::size_t>(sends[9].taken));
}
