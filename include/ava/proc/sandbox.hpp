#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

// The sandbox commands run in (docs/permissions.md): Landlock keeps writes
// inside the allowed folders, and with the network off a seccomp filter
// refuses every socket but a Unix one (Landlock's TCP rules too, where the
// kernel has them). Reading stays as the user may. Nothing to install: both
// are in the kernel.
namespace ava::proc {

// The names Codex users know.
enum class SandboxMode { off, read_only, workspace_write };
std::string_view to_string(SandboxMode mode);
Result<SandboxMode> parse_sandbox_mode(std::string_view text);  // read-only, workspace-write, off

struct Sandbox {
  SandboxMode mode = SandboxMode::off;
  // workspace-write: the folders commands may change (the project, its
  // worktree, settings' writableRoots); the temp folders are added to them.
  std::vector<std::filesystem::path> writable_roots;
  bool network = false;  // false: no TCP/UDP/raw sockets, Unix sockets only
};

// What this kernel offers, probed once. AVA_SANDBOX_MAX_ABI (a number)
// lowers the Landlock ABI the probe reports, to try the older kernels'
// paths (0: no Landlock at all).
struct SandboxSupport {
  int landlock_abi = 0;         // 0: none
  int kernel_landlock_abi = 0;  // before AVA_SANDBOX_MAX_ABI
  bool filesystem() const { return landlock_abi >= 1; }
  bool tcp_rules() const { return landlock_abi >= 4; }  // Landlock's network rules
  bool signal_scope() const { return landlock_abi >= 6; }
  // "Landlock ABI 7 (filesystem, TCP, scopes)" or why there is none.
  std::string describe() const;
};
const SandboxSupport& sandbox_support();

// The folders a sandbox lets commands write, as it will apply them: the
// existing writable roots and temp folders, resolved.
std::vector<std::filesystem::path> writable_folders(const Sandbox& sandbox);

// Restricts the calling thread, and everything it starts from now on, for
// good: no new privileges, the Landlock ruleset, and the socket filter when
// the network is off. Call it on a thread of its own (spawn does). An error
// means the thread could not be restricted: then nothing may be started.
Result<void> restrict_this_thread(const Sandbox& sandbox);

}  // namespace ava::proc
