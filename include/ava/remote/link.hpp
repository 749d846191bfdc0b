#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/machine/runtime_files.hpp"
#include "ava/remote/bootstrap.hpp"
#include "ava/remote/openssh.hpp"
#include "ava/remote/probe.hpp"
#include "ava/remote/ssh_session.hpp"
#include "ava/remote/tunnel.hpp"

namespace ava::remote {

// A client's working connection to a machine's backend: the SSH session,
// the backend it started or found there (port and token, held in memory
// only) and the local tunnel to it.
struct Link {
  std::unique_ptr<MachineShell> session;  // libssh2, or the system ssh client
  RemoteSystem system;
  Installed installed;
  machine::BackendEndpoint backend;  // the port is the machine's
  std::unique_ptr<Tunnel> tunnel;
  // The backend runs another build than the one installed for this client:
  // it is used as it is, and the update waits until no turn runs there.
  bool update_pending = false;
  std::string version;  // this client's
  // The client's sign-in redirect listener (SignInRelay), registered with
  // the tunnel; 0: none.
  std::uint16_t redirect_port = 0;
};

struct LinkOptions {
  ConnectOptions ssh;
  // Set: the system ssh client (the machine's openssh transport) instead of
  // libssh2; `ssh.target` still names the machine in messages.
  std::optional<OpenSshOptions> openssh;
  std::uint16_t local_port = 0;  // 0: any free port
  // The machine id this client saw before (machines.json); another one is
  // refused: a different machine, or its AVA_HOME was replaced.
  std::string expected_machine_id;
  // This client's build, hashed once (local_build()); empty: hashed here.
  std::optional<LocalBuild> build;
  // Progress for a person ("uploading ava 0.1.0 (48 MB)").
  std::function<void(const std::string&)> progress;
};

// Connects, probes, installs this build when the machine lacks it, starts
// (or finds) the backend, checks its machine id, opens the tunnel and
// registers its port with the backend. Run the returned link's tunnel
// (link.tunnel->run()) on the same executor.
boost::asio::awaitable<Result<Link>> open_link(boost::asio::any_io_executor executor,
                                               LinkOptions options);

// A request to the machine's backend through the link's tunnel, with its
// token; the answer's status and body.
struct LinkResponse {
  int status = 0;
  std::string body;
};
boost::asio::awaitable<Result<LinkResponse>> link_request(const Link& link, std::string method,
                                                          std::string path, std::string body = {});

// Tells the machine's backend the tunnel's local port (POST
// /api/tunnel-ports), so a browser on this machine may use it, and the
// link's redirect_port for sign-ins started through it. Call once the
// tunnel runs.
boost::asio::awaitable<Result<void>> register_tunnel(const Link& link);

// Asks the machine's backend to restart into the installed build once no
// turn runs (`ava backend restart --when-idle`, detached on the machine, its
// output in AVA_HOME/logs/update.log there). A running turn is never
// cancelled: past an hour of turns the restart is given up.
boost::asio::awaitable<Result<void>> request_update(const Link& link);

// Reads the machine's backend.json again. When another backend runs now (an
// update's restart), checks its machine id, points the tunnel at it,
// registers the tunnel there and answers true; false when nothing changed
// (or the backend is between two processes).
boost::asio::awaitable<Result<bool>> refresh_backend(Link& link);

// A one-time login URL for a browser on this machine, through the tunnel:
// http://127.0.0.1:<local port>/?login=CODE.
boost::asio::awaitable<Result<std::string>> link_login_url(const Link& link);

}  // namespace ava::remote
