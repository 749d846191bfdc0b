#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/proc/spawn.hpp"

namespace ava::proc {

struct RunOptions {
  // stdout_mode and stderr_mode decide what is captured; stdin_mode pipe feeds
  // stdin_bytes and then closes the pipe.
  SpawnOptions spawn;
  std::string stdin_bytes;
  std::optional<std::chrono::milliseconds> timeout;                      // none: no deadline
  std::size_t capture_limit = base::Limits::defaults().process_capture;  // per stream
  std::chrono::milliseconds kill_grace = base::Limits::defaults().kill_grace;
};

struct CapturedOutput {
  std::string text;             // head + marker + tail when truncated
  std::size_t total_bytes = 0;  // everything the process wrote
  std::size_t omitted_bytes = 0;
  bool truncated() const { return omitted_bytes > 0; }
};

struct RunResult {
  pid_t pid = -1;
  ExitStatus status;
  bool timed_out = false;  // the deadline passed; the group was terminated
  bool cancelled = false;  // the caller cancelled; the group was terminated
  CapturedOutput out;      // stdout (and stderr when merged)
  CapturedOutput err;
  std::chrono::nanoseconds duration{};
};

// Runs a process to completion without blocking a thread: exits are awaited
// on a pidfd, pipes are read with the reactor, so hundreds can run at once.
//
// Timeout and cancellation (the awaiting coroutine's cancellation slot,
// terminal cancellation) both end the process group: SIGTERM, kill_grace,
// then SIGKILL. A second cancellation during the grace sends SIGKILL at once.
// When the group leader exits, what is left of its group is killed too, so no
// background straggler keeps the pipes (or the caller) waiting.
//
// An Error means the process could not be started; everything after that,
// including signals and timeouts, is reported in RunResult.
boost::asio::awaitable<Result<RunResult>> run(RunOptions options);

}  // namespace ava::proc
