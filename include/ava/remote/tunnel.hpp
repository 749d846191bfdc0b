#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/remote/machine_shell.hpp"

namespace ava::remote {

// A local listener on 127.0.0.1 whose every connection is forwarded through
// its own direct-tcpip channel to a port on the machine's loopback (the
// remote backend's), bytes both ways as they come, so SSE streams flow
// through unbuffered. Like `ssh -L 127.0.0.1:local:127.0.0.1:remote`.
class Tunnel {
 public:
  // Binds 127.0.0.1:local_port (0: any free port) on `executor`, which must
  // be the session's.
  static Result<std::unique_ptr<Tunnel>> listen(boost::asio::any_io_executor executor,
                                                MachineShell& session, std::uint16_t remote_port,
                                                std::uint16_t local_port = 0);
  ~Tunnel();
  Tunnel(const Tunnel&) = delete;
  Tunnel& operator=(const Tunnel&) = delete;

  std::uint16_t local_port() const;
  // New connections go to this port from now on (the backend restarted);
  // open ones keep theirs.
  void set_remote_port(std::uint16_t port);
  // Accepts and forwards until close() or the SSH connection fails (then an
  // unavailable error); keeps the connection alive meanwhile.
  boost::asio::awaitable<Result<void>> run();
  // Stops accepting and ends every forwarded connection.
  void close();
  std::size_t open_connections() const;

  struct State;

 private:
  explicit Tunnel(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace ava::remote
