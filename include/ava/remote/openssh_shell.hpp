#pragma once

#include <filesystem>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/remote/machine_shell.hpp"
#include "ava/remote/openssh.hpp"

namespace ava::remote {

// The system ssh client as a MachineShell, for machines libssh2 cannot
// serve (RSA user keys, ProxyJump, FIDO keys): each command is an `ssh` run,
// each forwarded connection an `ssh -W host:port`, all multiplexed over one
// OpenSSH control master whose socket lives in a private folder of this
// process (so only the first run signs in; the master goes away at close()
// and at most a minute after this process). Host keys are checked first
// under Ava's rules (openssh_verify_host); every run then uses
// StrictHostKeyChecking=yes.
class OpenSshShell final : public MachineShell {
 public:
  static boost::asio::awaitable<Result<std::unique_ptr<OpenSshShell>>> open(
      boost::asio::any_io_executor executor, OpenSshOptions options);
  ~OpenSshShell() override;
  OpenSshShell(const OpenSshShell&) = delete;
  OpenSshShell& operator=(const OpenSshShell&) = delete;

  boost::asio::awaitable<Result<ExecResult>> exec(std::string command, std::string input = {},
                                                  std::size_t limit = std::size_t{1}
                                                                      << 20) override;
  boost::asio::awaitable<Result<std::unique_ptr<MachineStream>>> open_forward(
      std::string host, std::uint16_t port) override;
  boost::asio::awaitable<Result<void>> upload(const std::filesystem::path& local,
                                              std::string remote_path, int mode) override;
  Result<int> keepalive() override;
  bool broken() const override { return broken_ || closed_; }
  void close() override;

  const HostKey& host_key() const { return host_key_; }

 private:
  OpenSshShell(boost::asio::any_io_executor executor, OpenSshOptions options,
               std::filesystem::path control_dir);

  boost::asio::any_io_executor executor_;
  OpenSshOptions options_;
  std::filesystem::path control_dir_;
  HostKey host_key_;
  bool broken_ = false;
  bool closed_ = false;
};

}  // namespace ava::remote
