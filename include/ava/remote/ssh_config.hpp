#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

namespace ava::remote {

// What a person types for a machine: `[user@]host[:port]`, where host may be
// an alias from ~/.ssh/config, an IPv6 address in brackets (`[::1]:2222`).
struct SshDestination {
  std::string host;
  std::optional<std::string> user;
  std::optional<std::uint16_t> port;
};
Result<SshDestination> parse_destination(std::string_view text);
std::string to_string(const SshDestination& destination);

// The connection a destination resolves to after ~/.ssh/config, with the
// parts of OpenSSH's behaviour people rely on: Host blocks (patterns,
// negation, first value wins), HostName, User, Port, IdentityFile (tokens
// and ~), IdentitiesOnly, IdentityAgent, UserKnownHostsFile,
// ServerAliveInterval, ConnectTimeout, Include. What libssh2 cannot do
// (ProxyJump, ProxyCommand) is reported rather than ignored.
struct SshTarget {
  std::string alias;  // what the destination named
  std::string host;   // HostName, else the alias
  std::string user;
  std::uint16_t port = 22;
  std::vector<std::filesystem::path> identity_files;  // in order; may not exist
  bool identities_only = false;
  std::optional<std::string> identity_agent;  // a socket path, or "none"
  std::vector<std::filesystem::path> known_hosts_files;
  int server_alive_interval = 0;  // seconds; 0: Ava's default
  int connect_timeout = 0;        // seconds; 0: Ava's default
  std::optional<std::string> proxy_jump;
  std::optional<std::string> proxy_command;
  std::vector<std::string> notes;  // config lines Ava read but does not follow
};

struct SshConfigSources {
  std::filesystem::path home;                          // the local user's home (~)
  std::string local_user;                              // %u
  std::optional<std::filesystem::path> user_config;    // default ~/.ssh/config
  std::optional<std::filesystem::path> system_config;  // default /etc/ssh/ssh_config
};

// The sources of this process: $HOME (else the password database) and the
// user's name; the default files.
Result<SshConfigSources> default_config_sources();

// Resolves `destination` through the config files. Values given in the
// destination (user@, :port) win over the files, as on ssh's command line;
// `extra_identity` (--identity) comes before the files' IdentityFile lines.
Result<SshTarget> resolve_target(const SshDestination& destination, const SshConfigSources& sources,
                                 const std::optional<std::filesystem::path>& extra_identity = {});

// The same resolution over config text already read (tests, fuzzing);
// Include lines are resolved against `sources.home`/.ssh.
Result<SshTarget> resolve_target_from_text(const SshDestination& destination,
                                           std::string_view config_text,
                                           const SshConfigSources& sources);

// OpenSSH's pattern match: `*` and `?`, case-insensitive.
bool ssh_pattern_match(std::string_view pattern, std::string_view text);
// A comma or space separated list with `!` negation: true when some
// positive pattern matches and no negated one does.
bool ssh_pattern_list_match(const std::vector<std::string>& patterns, std::string_view text);

}  // namespace ava::remote
