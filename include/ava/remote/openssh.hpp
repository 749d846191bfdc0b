#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/remote/known_hosts.hpp"
#include "ava/remote/ssh_config.hpp"
#include "ava/remote/ssh_session.hpp"

namespace ava::remote {

// The system `ssh` client as a machine's transport, for what libssh2 cannot
// do (RSA user keys, ProxyJump, FIDO keys). Host keys follow the same rules
// as the libssh2 transport: Ava learns the key the host offers from a run
// that signs in with nothing and writes only to a scratch file, checks it
// against known_hosts itself (unknown keys need the same explicit accept),
// and every real run uses StrictHostKeyChecking=yes and BatchMode.
struct OpenSshOptions {
  SshDestination destination;  // passed to ssh as given, so its config applies
  SshTarget target;            // the same destination resolved by Ava
  std::optional<std::filesystem::path> config_file;  // the ssh_config Ava read (-F)
  AcceptHostKey accept_host_key;
  std::chrono::seconds timeout{20};
  std::string ssh_program = "ssh";
  // More `-o` settings for every real run (openssh_exec), e.g. a control
  // master's ControlPath.
  std::vector<std::string> run_options;
};

// The arguments every run shares (config file, known_hosts files, identity
// files, user, port, batch mode), without the destination.
std::vector<std::string> openssh_base_arguments(const OpenSshOptions& options);

// Checks (and on an explicit accept, records) the host key; the key.
boost::asio::awaitable<Result<HostKey>> openssh_verify_host(const OpenSshOptions& options);

// Runs `command` on the machine through ssh (after openssh_verify_host).
boost::asio::awaitable<Result<ExecResult>> openssh_exec(
    const OpenSshOptions& options, std::string command, std::string input = {},
    std::optional<std::chrono::seconds> timeout = std::nullopt);

}  // namespace ava::remote
