#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/unique_fd.hpp"
#include "ava/proc/sandbox.hpp"

namespace ava::proc {

// Where a child's standard stream goes.
enum class StdinMode { null, pipe };                   // /dev/null, or a pipe the parent writes
enum class OutputMode { pipe, null, inherit };         // captured, discarded, or the parent's
enum class StderrMode { pipe, merge, null, inherit };  // merge: into stdout's pipe, in order

struct SpawnOptions {
  std::vector<std::string> argv;           // argv[0] is looked up in the parent's PATH
  std::filesystem::path cwd;               // empty: the parent's working directory
  bool clear_env = false;                  // start from an empty environment
  std::map<std::string, std::string> env;  // added to, or replacing, the environment
  std::vector<std::string> env_remove;     // names dropped from the inherited environment
  // Leaves out inherited variables that look like credentials (see
  // environment.hpp), except those in `keep` and the process-wide kept
  // names; `env` is still applied, so a configured value gets through.
  bool scrub_secrets = false;
  std::vector<std::string> keep;
  StdinMode stdin_mode = StdinMode::null;
  OutputMode stdout_mode = OutputMode::pipe;
  StderrMode stderr_mode = StderrMode::pipe;
  // The child leads a new process group (pgid == pid), so a timeout or a
  // cancellation can signal everything it started.
  bool new_process_group = true;
  // Starts the child inside this sandbox (sandbox.hpp); mode off: none. If
  // the sandbox cannot be applied, nothing is started.
  Sandbox sandbox;
};

// A started child. The pipes are the parent's ends, non-blocking and
// close-on-exec; the pidfd becomes readable when the child exits.
struct Child {
  pid_t pid = -1;
  base::UniqueFd pidfd;
  base::UniqueFd stdin_pipe;
  base::UniqueFd stdout_pipe;
  base::UniqueFd stderr_pipe;
};

// How a reaped child ended: an exit code, or the signal that killed it.
struct ExitStatus {
  int code = -1;   // valid when signal == 0
  int signal = 0;  // the terminating signal, 0 if the child exited
  bool success() const { return signal == 0 && code == 0; }
  // "exit code 3" or "killed by signal 9 (KILL)".
  std::string describe() const;
};

// Starts argv with posix_spawn: only the three standard descriptors are
// inherited (everything from 3 up is closed in the child), signal dispositions
// and mask are reset to defaults. A missing program is an error here, not an
// exit code 127 later.
Result<Child> spawn(const SpawnOptions& options);

// The environment a child would get: the parent's (unless cleared), minus
// env_remove (and the secrets when scrub_secrets), with env applied.
// "NAME=value" strings.
std::vector<std::string> build_environment(const SpawnOptions& options);

// Collects an exited child (waitpid). Blocks if the child is still running, so
// call it once its pidfd is readable or after SIGKILL.
Result<ExitStatus> reap(pid_t pid);

// Sends a signal to the child's process group (or to the child alone when it
// has no group of its own). ESRCH (already gone) is success.
Result<void> signal_group(pid_t pgid, int signal_number);

}  // namespace ava::proc
