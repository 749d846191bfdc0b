#include "ava/proc/run.hpp"

#include <sys/wait.h>

#include <array>
#include <csignal>
#include <exception>
#include <memory>
#include <optional>
#include <tuple>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "ava/base/clock.hpp"
#include "ava/proc/capture.hpp"

namespace ava::proc {
namespace {

namespace asio = boost::asio;
using asio::posix::stream_descriptor;
using Strand = asio::strand<asio::any_io_executor>;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// The caller's cancellation, handed to the supervisor. Shared with the
// cancellation handler, which may fire from another thread after run() ends.
struct CancelRequests {
  explicit CancelRequests(const Strand& strand) : wake(strand) {}
  asio::steady_timer wake;  // cancelled on each request; lives on the run's strand
  int count = 0;            // touched on the strand only
};

// What one run's coroutines share. They all run on one strand, so the plain
// members need no locking.
struct RunState {
  RunState(Strand run_strand, Child& child, const RunOptions& options)
      : strand(std::move(run_strand)),
        pid(child.pid),
        own_group(options.spawn.new_process_group),
        exit_watch(strand, child.pidfd.release()),
        out_capture(options.capture_limit),
        err_capture(options.capture_limit),
        drain_timer(strand),
        cancel(std::make_shared<CancelRequests>(strand)) {
    if (child.stdin_pipe.valid()) in.emplace(strand, child.stdin_pipe.release());
    if (child.stdout_pipe.valid()) out.emplace(strand, child.stdout_pipe.release());
    if (child.stderr_pipe.valid()) err.emplace(strand, child.stderr_pipe.release());
    open_streams = (out ? 1 : 0) + (err ? 1 : 0);
  }
  // Only reached unreaped when the coroutine is destroyed mid-run (its
  // io_context went away): no process may outlive its owner unnoticed.
  ~RunState() {
    if (status) return;
    ::kill(own_group ? -pid : pid, SIGKILL);
    std::ignore = reap(pid);
  }
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;
  RunState(RunState&&) = delete;
  RunState& operator=(RunState&&) = delete;

  Strand strand;
  pid_t pid;
  bool own_group;
  stream_descriptor exit_watch;  // the pidfd
  std::optional<stream_descriptor> in;
  std::optional<stream_descriptor> out;
  std::optional<stream_descriptor> err;
  OutputCapture out_capture;
  OutputCapture err_capture;
  asio::steady_timer drain_timer;  // bounds the wait for pipes after the exit
  std::shared_ptr<CancelRequests> cancel;
  int cancels_seen = 0;
  int open_streams = 0;
  bool timed_out = false;
  bool cancelled = false;
  std::optional<Result<ExitStatus>> status;
};

void send_signal(const RunState& state, int signal_number) {
  if (state.own_group) {
    std::ignore = signal_group(state.pid, signal_number);
  } else {
    ::kill(state.pid, signal_number);
  }
}

// True once the child is a zombie; does not reap it.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

enum class Wake { exited, timer, cancelled };

// Waits for the exit, the timer, or a cancellation request of the caller.
// The pidfd is edge-triggered in the reactor and a wait does not probe it
// first, so an exit that happened before the wait was queued is checked here.
asio::awaitable<Wake> wait_exit_or(RunState& state, asio::steady_timer& timer) {
  if (has_exited(state.pid)) co_return Wake::exited;
  auto& cancel = *state.cancel;
  if (cancel.count > state.cancels_seen) {
    state.cancels_seen = cancel.count;
    co_return Wake::cancelled;
  }
  cancel.wake.expires_at(asio::steady_timer::time_point::max());
  auto [order, exit_error, timer_error, cancel_error] =
      co_await asio::experimental::make_parallel_group(
          state.exit_watch.async_wait(stream_descriptor::wait_read, asio::deferred),
          timer.async_wait(asio::deferred), cancel.wake.async_wait(asio::deferred))
          .async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  (void)cancel_error;
  if (order[0] == 0 && exit_error != asio::error::operation_aborted) co_return Wake::exited;
  if (order[0] == 1 && !timer_error) co_return Wake::timer;
  if (cancel.count > state.cancels_seen) {
    state.cancels_seen = cancel.count;
    co_return Wake::cancelled;
  }
  co_return has_exited(state.pid) ? Wake::exited : Wake::cancelled;
}

asio::awaitable<void> supervise(RunState& state, std::optional<std::chrono::milliseconds> timeout,
                                std::chrono::milliseconds grace) {
  // Cleanup continues after a cancellation; later waits must not throw.
  co_await asio::this_coro::throw_if_cancelled(false);
  asio::steady_timer timer(state.strand);
  if (timeout) {
    timer.expires_after(*timeout);
  } else {
    timer.expires_at(asio::steady_timer::time_point::max());
  }
  Wake wake = co_await wait_exit_or(state, timer);
  if (wake != Wake::exited) {
    (wake == Wake::timer ? state.timed_out : state.cancelled) = true;
    send_signal(state, SIGTERM);
    timer.expires_after(grace);
    wake = co_await wait_exit_or(state, timer);
    if (wake == Wake::cancelled) state.cancelled = true;
    while (wake != Wake::exited) {
      send_signal(state, SIGKILL);
      timer.expires_at(asio::steady_timer::time_point::max());
      wake = co_await wait_exit_or(state, timer);
    }
  }
  // The leader is a zombie, so its pid still names the group: kill what is
  // left of it before reaping, or a background job would hold the pipes open.
  if (state.own_group) send_signal(state, SIGKILL);
  state.status = reap(state.pid);
  if (state.open_streams > 0) {
    // A writer outside the group (one that called setsid) could keep the
    // pipes open forever; give the readers a grace period, then stop them.
    state.drain_timer.expires_after(grace);
    auto [error] = co_await state.drain_timer.async_wait(use_tuple);
    if (!error) {
      if (state.out) state.out->cancel();
      if (state.err) state.err->cancel();
    }
  }
}

asio::awaitable<void> drain(RunState& state, std::optional<stream_descriptor>& stream,
                            OutputCapture& capture) {
  // First, even before an early return: an abort is a normal read result, and
  // Boost 1.81's co_spawn awaits once more after a body that finished without
  // suspending; with a cancellation pending that await would throw outside
  // any handler and terminate the process.
  co_await asio::this_coro::throw_if_cancelled(false);
  if (!stream) co_return;
  std::array<char, std::size_t{16} * 1024> buffer{};
  for (;;) {
    auto [error, count] = co_await stream->async_read_some(asio::buffer(buffer), use_tuple);
    capture.append({buffer.data(), count});
    if (error) break;
  }
  stream->close();
  if (--state.open_streams == 0) state.drain_timer.cancel();
}

asio::awaitable<void> feed(RunState& state, const std::string& bytes) {
  co_await asio::this_coro::throw_if_cancelled(false);  // first: see drain()
  if (!state.in) co_return;
  if (!bytes.empty()) co_await asio::async_write(*state.in, asio::buffer(bytes), use_tuple);
  state.in->close();  // EOF for the child
}

CapturedOutput captured(const OutputCapture& capture) {
  return {.text = capture.text(),
          .total_bytes = capture.total_bytes(),
          .omitted_bytes = capture.omitted_bytes()};
}

}  // namespace

asio::awaitable<Result<RunResult>> run(RunOptions options) {
  const auto started = base::MonoClock::now();
  auto executor = co_await asio::this_coro::executor;
  AVA_CO_TRY(Child child, spawn(options.spawn));
  RunState state(asio::make_strand(executor), child, options);

  auto on_strand = [&](asio::awaitable<void> task) {
    return asio::co_spawn(state.strand, std::move(task), asio::deferred);
  };
  // The caller's cancellation goes to the supervisor only, never into the
  // group: Boost 1.81's co_spawn throws outside any handler (terminating the
  // process) when a cancellation reaches a task before its first step. The
  // supervisor ends the process group; the readers finish as the pipes close.
  asio::cancellation_state caller = co_await asio::this_coro::cancellation_state;
  asio::cancellation_slot slot = caller.slot();
  if (slot.is_connected()) {
    slot.assign([requests = state.cancel](asio::cancellation_type) {
      asio::post(requests->wake.get_executor(), [requests] {
        ++requests->count;
        requests->wake.cancel();
      });
    });
  }
  auto [order, supervise_error, out_error, err_error, feed_error] =
      co_await asio::experimental::make_parallel_group(
          on_strand(supervise(state, options.timeout, options.kill_grace)),
          on_strand(drain(state, state.out, state.out_capture)),
          on_strand(drain(state, state.err, state.err_capture)),
          on_strand(feed(state, options.stdin_bytes)))
          .async_wait(asio::experimental::wait_for_all(),
                      asio::bind_cancellation_slot(asio::cancellation_slot(), asio::use_awaitable));
  if (slot.is_connected()) slot.clear();
  for (const auto& error : {supervise_error, out_error, err_error, feed_error}) {
    if (error) std::rethrow_exception(error);  // a bug, not an outcome
  }
  (void)order;

  if (!state.status) co_return fail(ErrorCode::internal, "process was not reaped");
  if (!*state.status) co_return std::unexpected(std::move(*state.status).error());
  co_return RunResult{.pid = state.pid,
                      .status = **state.status,
                      .timed_out = state.timed_out,
                      .cancelled = state.cancelled,
                      .out = captured(state.out_capture),
                      .err = captured(state.err_capture),
                      .duration = base::MonoClock::now() - started};
}

}  // namespace ava::proc
