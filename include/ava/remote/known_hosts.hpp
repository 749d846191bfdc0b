#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

namespace ava::remote {

// A server's public host key as the SSH wire carries it: the blob starts
// with its own type name ("ssh-ed25519", "ecdsa-sha2-nistp256", ...).
struct HostKey {
  std::string type;
  std::string blob;
};

// The type name at the start of a key blob; parse error for a blob that is
// not one.
Result<HostKey> host_key_from_blob(std::string blob);

// "SHA256:" + unpadded base64 of the blob's SHA-256, as `ssh-keygen -lf`
// and ssh's prompts print it.
std::string sha256_fingerprint(std::string_view blob);

// The name a host has in known_hosts: "host" on port 22, else "[host]:port".
std::string known_hosts_name(std::string_view host, std::uint16_t port);

// Strict host keys: ~/.ssh/known_hosts (plain, pattern and hashed `|1|`
// entries), @revoked lines honoured, @cert-authority lines not used.
enum class HostKeyStatus {
  known,    // an entry for this host holds this key
  unknown,  // no entry for this host: needs an explicit accept
  changed,  // entries for this host hold other keys: refused
  revoked,  // the key is marked @revoked: refused
};

struct KnownKey {
  std::string type;
  std::string fingerprint;
  std::string where;  // "file:line"
};

struct HostKeyCheck {
  HostKeyStatus status = HostKeyStatus::unknown;
  std::vector<KnownKey> known;  // the entries for this host (changed: the old keys)
};

// Reads every file (missing ones are empty; each bounded in size) and
// compares `key` with the entries for host:port.
HostKeyCheck check_host_key(const std::vector<std::filesystem::path>& files, std::string_view host,
                            std::uint16_t port, const HostKey& key);

// The key types known for host:port, so a connection can prefer them and
// not mistake a different algorithm for a changed key.
std::vector<std::string> known_key_types(const std::vector<std::filesystem::path>& files,
                                         std::string_view host, std::uint16_t port);

// Appends a hashed entry (as ssh with HashKnownHosts does) for host:port to
// `file`, creating it 0600 (and its folder 0700) if needed.
Result<void> add_known_host(const std::filesystem::path& file, std::string_view host,
                            std::uint16_t port, const HostKey& key);

// The message for a host key that is not accepted: what a person needs to
// decide (the fingerprint to compare, both fingerprints for a changed key).
std::string describe_host_key_problem(std::string_view host, std::uint16_t port, const HostKey& key,
                                      const HostKeyCheck& check);

}  // namespace ava::remote
