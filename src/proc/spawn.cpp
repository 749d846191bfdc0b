#include "ava/proc/spawn.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "ava/proc/environment.hpp"
#include "sys.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace ava::proc {
namespace {

// RAII for the two posix_spawn argument objects.
struct SpawnActions {
  posix_spawn_file_actions_t value{};
  SpawnActions() { ::posix_spawn_file_actions_init(&value); }
  ~SpawnActions() { ::posix_spawn_file_actions_destroy(&value); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
};

struct SpawnAttributes {
  posix_spawnattr_t value{};
  SpawnAttributes() { ::posix_spawnattr_init(&value); }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&value); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
};

Result<void> check(int rc, std::string_view what) {
  if (rc != 0) return base::fail_errno(what, rc);
  return {};
}

Result<void> route_streams(const SpawnOptions& options, SpawnActions& actions, Child& child,
                           sys::Pipe& in, sys::Pipe& out, sys::Pipe& err) {
  auto* fa = &actions.value;
  if (options.stdin_mode == StdinMode::pipe) {
    AVA_TRY(in, sys::make_pipe());
    AVA_TRY_VOID(check(::posix_spawn_file_actions_adddup2(fa, in.read.get(), 0), "dup2 stdin"));
    child.stdin_pipe = std::move(in.write);
  } else {
    AVA_TRY_VOID(check(::posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0),
                       "open /dev/null"));
  }
  if (options.stdout_mode == OutputMode::pipe) {
    AVA_TRY(out, sys::make_pipe());
    AVA_TRY_VOID(check(::posix_spawn_file_actions_adddup2(fa, out.write.get(), 1), "dup2 stdout"));
    child.stdout_pipe = std::move(out.read);
  } else if (options.stdout_mode == OutputMode::null) {
    AVA_TRY_VOID(check(::posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0),
                       "open /dev/null"));
  }
  switch (options.stderr_mode) {
    case StderrMode::pipe: {
      AVA_TRY(err, sys::make_pipe());
      AVA_TRY_VOID(
          check(::posix_spawn_file_actions_adddup2(fa, err.write.get(), 2), "dup2 stderr"));
      child.stderr_pipe = std::move(err.read);
      break;
    }
    case StderrMode::merge:
      AVA_TRY_VOID(check(::posix_spawn_file_actions_adddup2(fa, 1, 2), "dup2 stderr"));
      break;
    case StderrMode::null:
      AVA_TRY_VOID(check(::posix_spawn_file_actions_addopen(fa, 2, "/dev/null", O_WRONLY, 0),
                         "open /dev/null"));
      break;
    case StderrMode::inherit: break;
  }
  return {};
}

}  // namespace

std::vector<std::string> build_environment(const SpawnOptions& options) {
  std::vector<std::string> out;
  auto overridden = [&](std::string_view entry) {
    const auto name = entry.substr(0, entry.find('='));
    for (const auto& removed : options.env_remove) {
      if (name == removed) return true;
    }
    return options.env.contains(std::string(name));
  };
  if (!options.clear_env) {
    std::vector<std::string> inherited;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      if (!overridden(*entry)) inherited.emplace_back(*entry);
    }
    out = options.scrub_secrets ? scrub_environment(inherited, options.keep) : std::move(inherited);
  }
  for (const auto& [name, value] : options.env) out.push_back(fmt::format("{}={}", name, value));
  return out;
}

Result<Child> spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return fail(ErrorCode::invalid_argument, "spawn: empty argv");
  if (options.stderr_mode == StderrMode::merge && options.stdout_mode != OutputMode::pipe) {
    return fail(ErrorCode::invalid_argument, "spawn: stderr merge needs a stdout pipe");
  }
  sys::ignore_sigpipe();
  Child child;
  sys::Pipe in;
  sys::Pipe out;
  sys::Pipe err;
  SpawnActions actions;
  AVA_TRY_VOID(route_streams(options, actions, child, in, out, err));
  if (!options.cwd.empty()) {
    AVA_TRY_VOID(check(::posix_spawn_file_actions_addchdir_np(&actions.value, options.cwd.c_str()),
                       "chdir"));
  }
  // Whatever the parent leaked without O_CLOEXEC stays out of the child.
  AVA_TRY_VOID(check(::posix_spawn_file_actions_addclosefrom_np(&actions.value, 3), "closefrom"));

  SpawnAttributes attributes;
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (options.new_process_group) flags |= POSIX_SPAWN_SETPGROUP;
  AVA_TRY_VOID(check(::posix_spawnattr_setflags(&attributes.value, flags), "spawn flags"));
  AVA_TRY_VOID(check(::posix_spawnattr_setpgroup(&attributes.value, 0), "spawn pgroup"));
  sigset_t signals;
  ::sigemptyset(&signals);
  AVA_TRY_VOID(check(::posix_spawnattr_setsigmask(&attributes.value, &signals), "spawn mask"));
  ::sigfillset(&signals);
  AVA_TRY_VOID(check(::posix_spawnattr_setsigdefault(&attributes.value, &signals), "spawn sigdef"));

  auto argv_strings = options.argv;
  auto env_strings = build_environment(options);
  auto argv = sys::c_strings(argv_strings);
  auto envp = sys::c_strings(env_strings);
  int rc = 0;
  if (options.sandbox.mode == SandboxMode::off) {
    rc = ::posix_spawnp(&child.pid, argv[0], &actions.value, &attributes.value, argv.data(),
                        envp.data());
  } else {
    // A thread of its own takes the restrictions (they cannot be undone) and
    // starts the child, which inherits them; this process stays free.
    Result<void> restricted;
    std::thread starter([&] {
      restricted = restrict_this_thread(options.sandbox);
      if (restricted) {
        rc = ::posix_spawnp(&child.pid, argv[0], &actions.value, &attributes.value, argv.data(),
                            envp.data());
      }
    });
    starter.join();
    if (!restricted) return std::unexpected(std::move(restricted).error());
  }
  if (rc != 0) return base::fail_errno(fmt::format("spawn {}", options.argv[0]), rc);

  auto pidfd = sys::pidfd_open(child.pid);
  if (!pidfd) {
    ::kill(child.pid, SIGKILL);
    std::ignore = reap(child.pid);
    return std::unexpected(std::move(pidfd).error());
  }
  child.pidfd = std::move(*pidfd);
  return child;
}

Result<ExitStatus> reap(pid_t pid) {
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, 0) == pid) break;
    if (errno != EINTR) return base::fail_errno("waitpid", errno);
  }
  if (WIFSIGNALED(status)) return ExitStatus{.code = -1, .signal = WTERMSIG(status)};
  return ExitStatus{.code = WEXITSTATUS(status), .signal = 0};
}

Result<void> signal_group(pid_t pgid, int signal_number) {
  if (pgid <= 0) return fail(ErrorCode::invalid_argument, "signal_group: no process group");
  if (::kill(-pgid, signal_number) != 0 && errno != ESRCH) return base::fail_errno("kill", errno);
  return {};
}

std::string ExitStatus::describe() const {
  if (signal == 0) return fmt::format("exit code {}", code);
  const char* name = ::sigabbrev_np(signal);
  return fmt::format("killed by signal {} ({})", signal, name != nullptr ? name : "?");
}

}  // namespace ava::proc
