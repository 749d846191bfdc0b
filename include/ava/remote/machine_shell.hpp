#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"

namespace ava::remote {

struct ExecResult {
  int exit_status = -1;
  std::string exit_signal;  // "TERM", ... when the command died of a signal
  std::string out;
  std::string err;
};

// Bytes to and from a port on the machine (usually its loopback), like one
// connection of `ssh -L`.
class MachineStream {
 public:
  virtual ~MachineStream() = default;
  // Some bytes from the far end into `buffer`; 0 at the end of its stream.
  virtual boost::asio::awaitable<Result<std::size_t>> read_some(char* buffer, std::size_t size) = 0;
  virtual boost::asio::awaitable<Result<void>> write_all(std::string_view bytes) = 0;
  // No more bytes from this side (the far end reads end of stream).
  virtual boost::asio::awaitable<Result<void>> send_eof() = 0;
};

// A signed-in connection to a machine, as installing Ava there, starting
// its backend and tunnelling to it need one: the libssh2 session
// (ssh_session.hpp) or the system ssh client (openssh_shell.hpp). Used from
// one executor.
class MachineShell {
 public:
  virtual ~MachineShell() = default;

  // Runs `command` through the remote user's shell, feeding `input` on
  // stdin; each of stdout and stderr is kept up to `limit` bytes (beyond it,
  // limit_exceeded).
  virtual boost::asio::awaitable<Result<ExecResult>> exec(std::string command,
                                                          std::string input = {},
                                                          std::size_t limit = std::size_t{1}
                                                                              << 20) = 0;

  // A stream to host:port as the machine sees it; each forwarded
  // connection has its own.
  virtual boost::asio::awaitable<Result<std::unique_ptr<MachineStream>>> open_forward(
      std::string host, std::uint16_t port) = 0;

  // Copies a local file to `remote_path` (relative to the remote home, or
  // absolute), created with `mode`; the remote file is replaced.
  virtual boost::asio::awaitable<Result<void>> upload(const std::filesystem::path& local,
                                                      std::string remote_path, int mode) = 0;

  // Keeps the connection alive when that is due; the seconds until the next
  // call.
  virtual Result<int> keepalive() = 0;

  // True once the connection failed or was closed.
  virtual bool broken() const = 0;
  // Ends every wait on the connection: calls in progress and later ones
  // fail at once.
  virtual void close() = 0;
};

}  // namespace ava::remote
