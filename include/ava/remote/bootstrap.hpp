#pragma once

#include <filesystem>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/machine/runtime_files.hpp"
#include "ava/remote/machine_shell.hpp"
#include "ava/remote/probe.hpp"

namespace ava::remote {

// The build this client runs, as it would be installed on a machine.
struct LocalBuild {
  std::string version;  // base::version()
  std::string os;       // uname -s of this machine
  std::string arch;     // uname -m
  std::filesystem::path ava;
  std::filesystem::path backend;
  std::string ava_sha256;
  std::string backend_sha256;
  // The folder name under versions/: the version and the start of the ava
  // binary's hash, so two builds of one version never share a folder.
  std::string id;
};

// `ava` (this process's binary, or AVA_BIN) and `ava-backend` beside it
// (machine::backend_binary()), hashed.
Result<LocalBuild> local_build();

// The sha256 of a file, hex.
Result<std::string> sha256_file(const std::filesystem::path& file);

struct Installed {
  std::string dir;  // absolute, on the machine: ~/.local/share/ava/versions/<id>
  std::string ava;  // dir + "/ava"
  bool uploaded = false;
};

// Makes sure the machine has this build. Present: nothing is sent. Missing:
// when the machine's system matches this build's, both binaries go by SFTP
// to temporary names in the version's folder, their SHA-256 is checked on
// the machine, then each is renamed into place (ava last, so a folder with
// `ava` is complete). A different OS or architecture is refused before
// anything is written.
boost::asio::awaitable<Result<Installed>> ensure_installed(MachineShell& session,
                                                           const RemoteSystem& system,
                                                           const LocalBuild& build);

// Points `current` at the installed version (an atomic symlink swap).
boost::asio::awaitable<Result<void>> activate(MachineShell& session, const RemoteSystem& system,
                                              const Installed& installed);

// Starts the machine's backend (`ava backend start`, which finds a running
// one) and reads its backend.json over the session: port, token, pid,
// machine id. The token never leaves the SSH channel and this process.
boost::asio::awaitable<Result<machine::BackendEndpoint>> start_remote_backend(
    MachineShell& session, const std::string& ava_path);

}  // namespace ava::remote
