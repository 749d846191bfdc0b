#pragma once

#include <poll.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <stdexcept>
#include <string>

#include "ava/proc/spawn.hpp"
#include "mcp/mcp_test_util.hpp"

namespace ava::test {

// server-everything in streamableHttp mode, started through
// tests/mcp-servers/loopback-launch.mjs so it listens on 127.0.0.1 on an
// ephemeral port (it prints "AVA_LISTENING <port>" on stderr once bound).
class EverythingHttp {
 public:
  EverythingHttp() {
    proc::SpawnOptions options{
        .argv = {"node", (mcp_servers_dir() / "loopback-launch.mjs").string(), everything_entry(),
                 "streamableHttp"},
        .stdout_mode = proc::OutputMode::null,
        .stderr_mode = proc::StderrMode::pipe};
    auto child = proc::spawn(options);
    if (!child) throw std::runtime_error(child.error().describe());
    child_ = std::move(*child);
    port_ = wait_for_port();
  }
  ~EverythingHttp() {
    std::ignore = proc::signal_group(child_.pid, SIGKILL);
    std::ignore = proc::reap(child_.pid);
  }
  EverythingHttp(const EverythingHttp&) = delete;
  EverythingHttp& operator=(const EverythingHttp&) = delete;

  std::string url() const { return "http://127.0.0.1:" + port_ + "/mcp"; }

 private:
  std::string wait_for_port() {
    const std::string marker = "AVA_LISTENING ";
    std::string seen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd fd{.fd = child_.stderr_pipe.get(), .events = POLLIN, .revents = 0};
      if (::poll(&fd, 1, 200) <= 0) continue;
      std::array<char, 4096> buffer{};
      const auto count = ::read(child_.stderr_pipe.get(), buffer.data(), buffer.size());
      if (count <= 0) break;
      seen.append(buffer.data(), static_cast<std::size_t>(count));
      const auto at = seen.find(marker);
      const auto end = at == std::string::npos ? at : seen.find('\n', at);
      if (end != std::string::npos)
        return seen.substr(at + marker.size(), end - at - marker.size());
    }
    throw std::runtime_error("server-everything did not start listening: " + seen);
  }

  proc::Child child_;
  std::string port_;
};

}  // namespace ava::test
