// Landlock and a seccomp socket filter, applied to one thread that then
// starts the command (spawn.cpp), so the process that asks is never
// restricted itself. The kernel's own headers on Debian 12 stop at Landlock
// ABI 2, so the newer constants are spelled here from the kernel's ABI.
#include "ava/proc/sandbox.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "ava/base/unique_fd.hpp"

namespace ava::proc {
namespace {

namespace fs = std::filesystem;

// struct landlock_ruleset_attr as of ABI 6; older kernels read a prefix.
struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;  // ABI 4
  std::uint64_t scoped = 0;              // ABI 6
};
struct PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
} __attribute__((packed));

constexpr std::uint32_t create_ruleset_version = 1U << 0;
constexpr int rule_path_beneath = 1;

constexpr std::uint64_t fs_write_file = 1ULL << 1;
constexpr std::uint64_t fs_remove_dir = 1ULL << 4;
constexpr std::uint64_t fs_remove_file = 1ULL << 5;
constexpr std::uint64_t fs_make_char = 1ULL << 6;
constexpr std::uint64_t fs_make_dir = 1ULL << 7;
constexpr std::uint64_t fs_make_reg = 1ULL << 8;
constexpr std::uint64_t fs_make_sock = 1ULL << 9;
constexpr std::uint64_t fs_make_fifo = 1ULL << 10;
constexpr std::uint64_t fs_make_block = 1ULL << 11;
constexpr std::uint64_t fs_make_sym = 1ULL << 12;
constexpr std::uint64_t fs_refer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t fs_truncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t net_bind_tcp = 1ULL << 0;
constexpr std::uint64_t net_connect_tcp = 1ULL << 1;
constexpr std::uint64_t scope_abstract_unix = 1ULL << 0;
constexpr std::uint64_t scope_signal = 1ULL << 1;

// What changes files: the rights the ruleset handles (reading and executing
// are not handled, so they stay as the user may).
std::uint64_t write_rights(int abi) {
  std::uint64_t rights = fs_write_file | fs_remove_dir | fs_remove_file | fs_make_char |
                         fs_make_dir | fs_make_reg | fs_make_sock | fs_make_fifo | fs_make_block |
                         fs_make_sym;
  if (abi >= 2) rights |= fs_refer;
  if (abi >= 3) rights |= fs_truncate;
  return rights;
}

int kernel_abi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, create_ruleset_version);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

int capped_abi(int found) {
  if (const char* cap = std::getenv("AVA_SANDBOX_MAX_ABI"); cap != nullptr && *cap != '\0') {
    char* end = nullptr;
    const long value = std::strtol(cap, &end, 10);
    if (end != nullptr && *end == '\0' && value >= 0)
      found = std::min(found, static_cast<int>(value));
  }
  return found;
}

// Device files every command may write, sandbox or not.
constexpr const char* device_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"};

Result<void> add_path_rule(int ruleset, const fs::path& path, std::uint64_t rights) {
  base::UniqueFd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return {};  // nothing there to allow
    return base::fail_errno("sandbox: open " + path.string(), errno);
  }
  PathBeneathAttr attr{.allowed_access = rights, .parent_fd = fd.get()};
  if (::syscall(SYS_landlock_add_rule, ruleset, rule_path_beneath, &attr, 0) != 0) {
    return base::fail_errno("sandbox: allow writes under " + path.string(), errno);
  }
  return {};
}

Result<void> apply_landlock(const Sandbox& sandbox, int abi) {
  const std::uint64_t rights = write_rights(abi);
  RulesetAttr attr{.handled_access_fs = rights};
  std::size_t size = offsetof(RulesetAttr, handled_access_net);
  if (abi >= 4) {
    if (!sandbox.network) attr.handled_access_net = net_bind_tcp | net_connect_tcp;
    size = offsetof(RulesetAttr, scoped);
  }
  if (abi >= 6) {
    attr.scoped = scope_signal | (sandbox.network ? 0 : scope_abstract_unix);
    size = sizeof(RulesetAttr);
  }
  base::UniqueFd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0)));
  if (!ruleset.valid()) return base::fail_errno("sandbox: landlock_create_ruleset", errno);
  for (const auto& folder : writable_folders(sandbox)) {
    AVA_TRY_VOID(add_path_rule(ruleset.get(), folder, rights));
  }
  // A file (not a folder) takes only the rights that apply to files.
  for (const char* device : device_files) {
    AVA_TRY_VOID(add_path_rule(ruleset.get(), device, rights & (fs_write_file | fs_truncate)));
  }
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) {
    return base::fail_errno("sandbox: landlock_restrict_self", errno);
  }
  return {};
}

#if defined(__x86_64__)
constexpr std::uint32_t native_arch = AUDIT_ARCH_X86_64;
constexpr std::uint32_t x32_bit = 0x40000000U;  // __X32_SYSCALL_BIT
#elif defined(__aarch64__)
constexpr std::uint32_t native_arch = AUDIT_ARCH_AARCH64;
constexpr std::uint32_t x32_bit = 0;
#endif

// With the network off: socket() for anything but AF_UNIX fails with
// EACCES, io_uring (which can open sockets without socket()) is reported
// missing so programs fall back to epoll, and syscalls of another ABI (i386,
// x32), which a filter keyed on native numbers cannot judge, fail.
Result<void> apply_socket_filter() {
#if defined(__x86_64__) || defined(__aarch64__)
  constexpr auto errno_return = [](int error) {
    return static_cast<std::uint32_t>(SECCOMP_RET_ERRNO |
                                      (static_cast<std::uint32_t>(error) & SECCOMP_RET_DATA));
  };
  const std::uint32_t nr_offset = offsetof(struct seccomp_data, nr);
  const std::uint32_t arch_offset = offsetof(struct seccomp_data, arch);
  const std::uint32_t domain_offset = offsetof(struct seccomp_data, args);  // args[0], low word
  // NOLINTBEGIN(hicpp-signed-bitwise): the kernel's BPF macros
  sock_filter program[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arch_offset),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, native_arch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, errno_return(ENOSYS)),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, nr_offset),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, x32_bit == 0 ? 0xFFFFFFFFU : x32_bit, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, errno_return(ENOSYS)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, errno_return(ENOSYS)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, domain_offset),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, errno_return(EACCES)),
  };
  // NOLINTEND(hicpp-signed-bitwise)
  sock_fprog filter{.len = static_cast<unsigned short>(std::size(program)), .filter = program};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) != 0) {
    return base::fail_errno("sandbox: seccomp filter", errno);
  }
  return {};
#else
  return fail(ErrorCode::unsupported, "sandbox: no socket filter for this architecture");
#endif
}

}  // namespace

std::string_view to_string(SandboxMode mode) {
  switch (mode) {
    case SandboxMode::off: return "off";
    case SandboxMode::read_only: return "read-only";
    case SandboxMode::workspace_write: return "workspace-write";
  }
  return "off";
}

Result<SandboxMode> parse_sandbox_mode(std::string_view text) {
  for (const auto mode : {SandboxMode::off, SandboxMode::read_only, SandboxMode::workspace_write}) {
    if (text == to_string(mode)) return mode;
  }
  return fail(ErrorCode::invalid_argument,
              fmt::format("unknown sandbox mode \"{}\": use read-only, workspace-write or off",
                          text.substr(0, 100)));
}

std::string SandboxSupport::describe() const {
  if (!filesystem() && kernel_landlock_abi > 0) {
    return fmt::format(
        "Landlock held back by AVA_SANDBOX_MAX_ABI (the kernel has ABI {}): "
        "commands cannot be sandboxed",
        kernel_landlock_abi);
  }
  if (!filesystem()) {
    return "no Landlock in this kernel (it needs Linux 5.13 or later with landlock in the "
           "lsm= list): commands cannot be sandboxed";
  }
  std::string parts = "filesystem";
  if (tcp_rules()) parts += ", TCP";
  if (signal_scope()) parts += ", scopes";
  return fmt::format("Landlock ABI {} ({}); network off by a seccomp socket filter", landlock_abi,
                     parts);
}

const SandboxSupport& sandbox_support() {
  static const SandboxSupport support = [] {
    const int kernel = kernel_abi();
    return SandboxSupport{.landlock_abi = capped_abi(kernel), .kernel_landlock_abi = kernel};
  }();
  return support;
}

std::vector<fs::path> writable_folders(const Sandbox& sandbox) {
  std::vector<fs::path> folders;
  if (sandbox.mode != SandboxMode::workspace_write) return folders;
  std::vector<fs::path> candidates = sandbox.writable_roots;
  for (const char* temp : {"/tmp", "/var/tmp", "/dev/shm"}) candidates.emplace_back(temp);
  if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir == '/') {
    candidates.emplace_back(tmpdir);
  }
  std::set<fs::path> seen;
  for (const auto& candidate : candidates) {
    std::error_code ec;
    const fs::path real = fs::canonical(candidate, ec);
    if (ec || !fs::is_directory(real, ec) || !seen.insert(real).second) continue;
    folders.push_back(real);
  }
  return folders;
}

Result<void> restrict_this_thread(const Sandbox& sandbox) {
  if (sandbox.mode == SandboxMode::off) return {};
  const int abi = sandbox_support().landlock_abi;
  if (abi < 1) return fail(ErrorCode::unsupported, sandbox_support().describe());
  // Required for both, and what keeps a setuid program from shedding them.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return base::fail_errno("sandbox: no_new_privs", errno);
  }
  AVA_TRY_VOID(apply_landlock(sandbox, abi));
  if (!sandbox.network) AVA_TRY_VOID(apply_socket_filter());
  return {};
}

}  // namespace ava::proc
