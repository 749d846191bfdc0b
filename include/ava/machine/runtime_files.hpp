#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"

namespace ava::machine {

// machine.json: this execution machine's durable identity, created once.
// Clients use it to tell machines apart and to notice that a reconnect
// reached a different one.
struct MachineIdentity {
  std::string machine_id;
  std::string hostname;
  std::int64_t created_ms = 0;
};
Result<MachineIdentity> load_or_create_machine(const base::Home& home);

// backend.json (0600): where the running backend listens and its bearer
// token. Written when it is ready, removed when it stops; a file left by a
// killed backend is stale and replaced by the next one that owns the home.
struct BackendEndpoint {
  pid_t pid = 0;
  std::uint16_t port = 0;
  std::string token;
  std::string version;
  std::string machine_id;
  std::int64_t started_ms = 0;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};
inline constexpr std::string_view backend_file_name = "backend.json";
Result<void> write_backend_file(const base::Home& home, const BackendEndpoint& endpoint);
Result<BackendEndpoint> read_backend_file(const base::Home& home);
// The same from text already read (a remote machine's, over SSH); `origin`
// names it in errors.
Result<BackendEndpoint> parse_backend_file(std::string_view text, std::string_view origin);
void remove_backend_file(const base::Home& home);

// 256 random bits from the kernel, as 64 hex digits.
Result<std::string> new_bearer_token();

}  // namespace ava::machine
