#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"

namespace ava::remote {

// How a machine is reached: libssh2 in the client process, or the system
// `ssh` client for what libssh2 cannot do (RSA user keys it signs with
// SHA-1 only, ProxyJump, FIDO keys). Both follow the same host-key rules.
enum class SshTransport { libssh2, openssh };
std::string_view to_string(SshTransport transport);
Result<SshTransport> parse_transport(std::string_view text);

// A remote machine as the client (the desktop's side) stores it: how to
// reach it, never the remote's secrets. The remote backend's token is read
// over SSH on each connection and kept in memory only.
struct Machine {
  std::string name;         // 1-64 of A-Z a-z 0-9 . _ -, not "local"
  std::string destination;  // [user@]host[:port], host possibly an ssh_config alias
  std::optional<std::filesystem::path> identity_file;
  SshTransport transport = SshTransport::libssh2;
  std::int64_t added_ms = 0;
  // The machine id its backend reported on the first connection; a later
  // connection that finds another one is refused.
  std::string machine_id;
};

Result<void> check_machine_name(std::string_view name);

// AVA_HOME/machines.json (0600, atomic replace). A missing file is an empty
// list; a malformed one is an error that names the file, never silently
// emptied.
class MachineStore {
 public:
  explicit MachineStore(const base::Home& home);

  Result<std::vector<Machine>> list() const;
  Result<Machine> get(std::string_view name) const;
  // already_exists when the name is taken.
  Result<void> add(const Machine& machine);
  // not_found when there is no such machine.
  Result<void> remove(std::string_view name);
  // Records the machine id first seen (see Machine::machine_id).
  Result<void> set_machine_id(std::string_view name, const std::string& machine_id);

  const std::filesystem::path& file() const { return file_; }

 private:
  Result<void> save(const std::vector<Machine>& machines) const;
  std::filesystem::path file_;
};

}  // namespace ava::remote
