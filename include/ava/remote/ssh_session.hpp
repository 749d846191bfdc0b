#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/remote/known_hosts.hpp"
#include "ava/remote/machine_shell.hpp"
#include "ava/remote/ssh_config.hpp"

namespace ava::remote {

// Asked for an unknown host key (never for a changed or revoked one): true
// accepts it, and it is added to the first known_hosts file.
using AcceptHostKey = std::function<bool(const HostKey& key, const std::string& fingerprint)>;
// Asked for the passphrase of an encrypted key file; nullopt skips the key.
using PassphrasePrompt =
    std::function<std::optional<std::string>(const std::filesystem::path& key_file)>;

// The host-key rule of both transports: a key that known_hosts (the
// target's files and the system's) holds for the host passes; an unknown one
// passes when `accept` agrees, and is then added to the target's first
// known_hosts file; a changed or revoked key is refused (permission_denied)
// with the fingerprints to compare.
Result<void> verify_host_key(const SshTarget& target, const HostKey& key,
                             const AcceptHostKey& accept);

struct ConnectOptions {
  SshTarget target;
  AcceptHostKey accept_host_key;     // empty: unknown keys are refused
  PassphrasePrompt passphrase;       // empty: encrypted keys are skipped
  std::chrono::seconds timeout{20};  // connect, handshake, sign-in; each exec call
};

class SshSession;

// One channel of a session: a TCP connection forwarded to the machine
// (direct-tcpip). The session must outlive its channels; all of them are
// used from the session's executor.
class SshChannel final : public MachineStream {
 public:
  struct Impl;
  explicit SshChannel(std::unique_ptr<Impl> impl);
  ~SshChannel() override;
  SshChannel(const SshChannel&) = delete;
  SshChannel& operator=(const SshChannel&) = delete;

  boost::asio::awaitable<Result<std::size_t>> read_some(char* buffer, std::size_t size) override;
  boost::asio::awaitable<Result<void>> write_all(std::string_view bytes) override;
  boost::asio::awaitable<Result<void>> send_eof() override;

 private:
  std::unique_ptr<Impl> impl_;
};

// One SSH connection through libssh2 (non-blocking, on Asio: every wait is
// a coroutine suspension, several channels share the connection), with
// strict host keys and key sign-in (ssh-agent, then the identity files).
class SshSession final : public MachineShell {
 public:
  ~SshSession() override;
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  // Connects, checks the host key against known_hosts (unknown keys go to
  // options.accept_host_key; changed and revoked ones are refused with both
  // fingerprints, permission_denied) and signs in. Errors say what to do:
  // which keys were tried, what libssh2 cannot use (RSA keys it signs with
  // SHA-1 only, FIDO keys, ProxyJump) and the openssh transport to use then.
  static boost::asio::awaitable<Result<std::unique_ptr<SshSession>>> connect(
      boost::asio::any_io_executor executor, ConnectOptions options);

  // Runs `command` through the remote user's shell, feeding `input` on
  // stdin; each of stdout and stderr is kept up to `limit` bytes (beyond it,
  // limit_exceeded).
  boost::asio::awaitable<Result<ExecResult>> exec(std::string command, std::string input = {},
                                                  std::size_t limit = std::size_t{1}
                                                                      << 20) override;

  // A channel to host:port as the machine sees it (usually its loopback),
  // like `ssh -L`; each forwarded connection has its own.
  boost::asio::awaitable<Result<std::unique_ptr<MachineStream>>> open_forward(
      std::string host, std::uint16_t port) override;

  // Copies a local file to `remote_path` (relative to the remote home, or
  // absolute) by SFTP, created with `mode`; the remote file is replaced.
  boost::asio::awaitable<Result<void>> upload(const std::filesystem::path& local,
                                              std::string remote_path, int mode) override;

  // Sends a keepalive when one is due; the seconds until the next one.
  Result<int> keepalive() override;

  // True once the connection failed (a read or write error on the socket)
  // or was closed.
  bool broken() const override;
  // Ends every wait on the connection: calls in progress and later ones fail
  // at once (before the session is destroyed under its channels).
  void close() override;

  const SshTarget& target() const;
  const HostKey& host_key() const;
  // How sign-in succeeded: "ssh-agent (ssh-ed25519 SHA256:...)" or a key file.
  const std::string& signed_in_with() const;

  struct State;

 private:
  explicit SshSession(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace ava::remote
