// The progress line of long waits: drawn on a terminal once the wait is
// long enough, erased at the end; nothing at all on a pipe or for a quick
// wait.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "cli/progress_line.hpp"

namespace {

using namespace std::chrono_literals;

std::string drain(int fd) {
  std::string out;
  char buffer[4096];
  pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
  while (::poll(&ready, 1, 100) > 0) {
    const auto n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

struct Pty {
  int master = -1;
  int slave = -1;
  Pty() {
    REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    ::setenv("TERM", "xterm", 1);  // NOLINT(concurrency-mt-unsafe)
  }
  ~Pty() {
    ::close(master);
    ::close(slave);
  }
};

}  // namespace

TEST_CASE("progress line: drawn on a terminal during a long wait, then erased") {
  Pty terminal;
  {
    ava::cli::ProgressLine progress("starting the backend", 0ms, terminal.slave);
    std::this_thread::sleep_for(250ms);
    progress.update("still starting");
    std::this_thread::sleep_for(250ms);
  }
  const std::string shown = drain(terminal.master);
  CHECK(shown.find("ava: starting the backend… 0.") != std::string::npos);
  CHECK(shown.find("ava: still starting… ") != std::string::npos);
  CHECK(shown.ends_with("\r\x1b[2K"));
}

TEST_CASE("progress line: nothing for a quick wait or on a pipe") {
  Pty terminal;
  { ava::cli::ProgressLine quick("quick", 300ms, terminal.slave); }
  CHECK(drain(terminal.master).empty());

  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  {
    ava::cli::ProgressLine piped("piped", 0ms, pipe_fds[1]);
    std::this_thread::sleep_for(200ms);
  }
  ::close(pipe_fds[1]);
  CHECK(drain(pipe_fds[0]).empty());
  ::close(pipe_fds[0]);
}
