#include "ava/mcp/stdio_transport.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <deque>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "ava/base/unique_fd.hpp"
#include "ava/mcp/jsonrpc.hpp"
#include "ava/proc/spawn.hpp"

namespace ava::mcp {
namespace {

namespace asio = boost::asio;
using asio::posix::stream_descriptor;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// Everything the background coroutines share. They run on the session's
// strand, so nothing here needs a lock; they hold the state alive until
// they end, which a close or the server's death guarantees.
struct State {
  State(Strand on, StdioServer config, TransportEvents handlers, proc::Child& child)
      : strand(std::move(on)),
        server(std::move(config)),
        events(std::move(handlers)),
        pid(child.pid),
        in(strand, child.stdin_pipe.release()),
        out(strand, child.stdout_pipe.release()),
        err(strand, child.stderr_pipe.release()),
        exit_watch(strand, child.pidfd.release()) {}
  ~State() {
    // Reached unreaped only when the io_context went away mid-run.
    if (pid > 0 && !status) {
      std::ignore = proc::signal_group(pid, SIGKILL);
      std::ignore = proc::reap(pid);
    }
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  Strand strand;
  StdioServer server;
  TransportEvents events;
  pid_t pid = -1;
  stream_descriptor in;  // closed on close(), or when a write fails
  stream_descriptor out;
  stream_descriptor err;
  stream_descriptor exit_watch;  // the pidfd
  std::deque<std::string> outbox;
  bool writing = false;
  bool output_done = false;  // stdout reached EOF (or failed)
  bool stderr_done = false;
  bool closing = false;
  bool reported = false;
  std::optional<Result<proc::ExitStatus>> status;
  std::vector<asio::steady_timer*> waiters;  // woken on every change above; they re-check
  std::string stderr_tail;
  base::UniqueFd stderr_file;
  std::size_t stderr_logged = 0;

  void notify() {
    for (auto* waiter : waiters) waiter->cancel();
  }

  void signal(int number) const {
    if (pid > 0 && !status) std::ignore = proc::signal_group(pid, number);
  }

  // Reports the peer's end once, quoting the end of its stderr.
  void report(std::string what) {
    if (reported || closing) return;
    reported = true;
    std::string tail = stderr_tail;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    if (!tail.empty()) what += fmt::format("; stderr ends with: {}", tail);
    if (events.on_closed) events.on_closed(Error{ErrorCode::unavailable, std::move(what)});
  }

  void log_stderr(std::string_view bytes) {
    stderr_tail.append(bytes);
    const std::size_t keep = server.stderr_tail_bytes;
    if (stderr_tail.size() > keep) stderr_tail.erase(0, stderr_tail.size() - keep);
    if (!stderr_file.valid()) return;
    const std::size_t room =
        server.stderr_log_bytes - std::min(stderr_logged, server.stderr_log_bytes);
    std::string_view part = bytes.substr(0, room);
    if (!part.empty()) std::ignore = ::write(stderr_file.get(), part.data(), part.size());
    stderr_logged += part.size();
    if (part.size() < bytes.size()) {
      constexpr std::string_view marker = "\n[ava: stderr log limit reached]\n";
      std::ignore = ::write(stderr_file.get(), marker.data(), marker.size());
      stderr_file.reset();
    }
  }

  // Waits until pred() holds or the deadline passes; true when it holds.
  template <class Pred>
  asio::awaitable<bool> wait_until(Pred pred, Clock::time_point deadline) {
    asio::steady_timer timer(strand, deadline);
    waiters.push_back(&timer);
    while (!pred() && Clock::now() < deadline) co_await timer.async_wait(use_tuple);
    std::erase(waiters, &timer);
    co_return pred();
  }
};

using StatePtr = std::shared_ptr<State>;

void dispatch_line(State& state, std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  auto message = jsonrpc::parse(line, state.server.max_message);
  if (!message) {
    // Servers that print to stdout by mistake are common; the line is not
    // ours to act on, the session goes on. (A line nested too deeply is
    // dropped the same way: whatever waits for it times out.)
    spdlog::warn("mcp {}: ignored a line that is not a usable JSON message ({}): {}",
                 state.server.command, message.error().message, line.substr(0, 200));
    return;
  }
  if (state.events.on_message) state.events.on_message(std::move(*message));
}

// Delivers the complete lines of `data`, keeping the unfinished one in
// `line`. False when a message broke the handler: the session must not go
// on as if it had been read.
bool dispatch_lines(State& state, std::string& line, std::string_view data) {
  try {
    while (!data.empty()) {
      const auto newline = data.find('\n');
      if (newline == std::string_view::npos) {
        line.append(data);
        break;
      }
      line.append(data.substr(0, newline));
      data.remove_prefix(newline + 1);
      dispatch_line(state, line);
      line.clear();
    }
    return true;
  } catch (const std::exception& error) {
    // Detached coroutines swallow exceptions; without this the reader would
    // stop without a word and every request wait for its timeout.
    spdlog::error("mcp {}: a message from the server could not be handled: {}",
                  state.server.command, error.what());
  } catch (...) {
    spdlog::error("mcp {}: a message from the server could not be handled", state.server.command);
  }
  state.report(fmt::format("MCP server {} sent a message Ava could not handle; stopping it",
                           state.server.command));
  return false;
}

asio::awaitable<void> read_output(StatePtr state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  std::array<char, std::size_t{64} * 1024> buffer{};
  std::string line;
  for (;;) {
    auto [error, count] = co_await state->out.async_read_some(asio::buffer(buffer), use_tuple);
    if (!dispatch_lines(*state, line, std::string_view(buffer.data(), count))) {
      state->signal(SIGKILL);
      break;
    }
    if (line.size() > state->server.max_message) {
      spdlog::warn("mcp {}: a message exceeds {} bytes; stopping the server", state->server.command,
                   state->server.max_message);
      state->signal(SIGKILL);
      break;
    }
    if (error) break;
  }
  state->output_done = true;
  state->notify();
  // A server that closed its output but lives on is of no use: end it.
  const auto deadline = Clock::now() + state->server.close_grace;
  const bool exited =
      co_await state->wait_until([&] { return state->status.has_value(); }, deadline);
  if (!exited) state->signal(SIGKILL);
}

asio::awaitable<void> read_stderr(StatePtr state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  std::array<char, std::size_t{16} * 1024> buffer{};
  for (;;) {
    auto [error, count] = co_await state->err.async_read_some(asio::buffer(buffer), use_tuple);
    state->log_stderr({buffer.data(), count});
    if (error) break;
  }
  state->stderr_done = true;
  state->notify();
}

asio::awaitable<void> watch_exit(StatePtr state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  while (!has_exited(state->pid)) {
    auto [error] = co_await state->exit_watch.async_wait(stream_descriptor::wait_read, use_tuple);
    if (error && error != asio::error::operation_aborted) break;
  }
  // The leader is gone: whatever it left in its group goes too.
  std::ignore = proc::signal_group(state->pid, SIGKILL);
  auto reaped = proc::reap(state->pid);
  std::string how = reaped ? reaped->describe() : reaped.error().message;
  state->status = std::move(reaped);
  state->notify();
  // Answers written just before the exit are still in the pipe: let the
  // reader deliver them before the session hears the server is gone.
  const auto deadline = Clock::now() + std::chrono::milliseconds(500);
  co_await state->wait_until([&] { return state->output_done && state->stderr_done; }, deadline);
  state->out.cancel();
  state->err.cancel();
  state->report(fmt::format("MCP server {} exited ({})", state->server.command, how));
}

asio::awaitable<void> write_outbox(StatePtr state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  while (!state->outbox.empty() && state->in.is_open()) {
    std::string bytes = std::move(state->outbox.front());
    state->outbox.pop_front();
    auto [error, written] = co_await asio::async_write(state->in, asio::buffer(bytes), use_tuple);
    if (error) {
      // A broken pipe means the server is going; watch_exit reports it.
      state->outbox.clear();
      boost::system::error_code ignored;
      state->in.close(ignored);
      state->signal(SIGKILL);
    }
  }
  state->writing = false;
  state->notify();
}

void spawn_task(const StatePtr& state, asio::awaitable<void> task) {
  asio::co_spawn(state->strand, std::move(task), asio::detached);
}

class StdioTransport final : public Transport {
 public:
  explicit StdioTransport(StdioServer server) : server_(std::move(server)) {}
  ~StdioTransport() override {
    // After close() nothing is left to stop (and the io_context may be gone).
    if (!state_ || state_->closing) return;
    // Dropped without close(): kill the group; the coroutines then end.
    asio::post(state_->strand, [state = state_] {
      state->closing = true;
      state->signal(SIGKILL);
    });
  }
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  asio::awaitable<Result<void>> start(Strand strand, TransportEvents events) override {
    if (state_) co_return fail(ErrorCode::conflict, "stdio transport already started");
    proc::SpawnOptions options;
    options.argv.push_back(server_.command);
    options.argv.insert(options.argv.end(), server_.args.begin(), server_.args.end());
    options.cwd = server_.cwd;
    // The user's environment without what looks like a credential; the
    // server's configured env (how it gets the key it needs) still applies.
    options.env = server_.env;
    options.scrub_secrets = true;
    options.stdin_mode = proc::StdinMode::pipe;
    options.stdout_mode = proc::OutputMode::pipe;
    options.stderr_mode = proc::StderrMode::pipe;
    options.new_process_group = true;
    options.sandbox = server_.sandbox;
    auto child = proc::spawn(options);
    if (!child) {
      const bool sandboxed = server_.sandbox.mode != proc::SandboxMode::off;
      co_return fail(ErrorCode::unavailable,
                     fmt::format("cannot start MCP server {}{}: {}", server_.command,
                                 sandboxed ? fmt::format(" in its {} sandbox",
                                                         proc::to_string(server_.sandbox.mode))
                                           : std::string(),
                                 child.error().message));
    }
    auto state = std::make_shared<State>(strand, server_, std::move(events), *child);
    if (server_.stderr_log) {
      const int fd =
          ::open(server_.stderr_log->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      if (fd >= 0) state->stderr_file = base::UniqueFd(fd);
    }
    state_ = state;
    spawn_task(state, read_output(state));
    spawn_task(state, read_stderr(state));
    spawn_task(state, watch_exit(state));
    co_return Result<void>{};
  }

  asio::awaitable<Result<void>> send(json message) override {
    if (!state_) co_return fail(ErrorCode::conflict, "stdio transport not started");
    auto state = state_;
    if (state->closing || state->reported || state->status || !state->in.is_open()) {
      co_return fail(ErrorCode::unavailable,
                     fmt::format("MCP server {} is not running", server_.command));
    }
    std::string bytes = message.dump(-1, ' ', false, json::error_handler_t::replace);
    if (bytes.size() > server_.max_message) {
      co_return fail(ErrorCode::limit_exceeded, fmt::format("MCP message of {} bytes exceeds {}",
                                                            bytes.size(), server_.max_message));
    }
    bytes += '\n';
    state->outbox.push_back(std::move(bytes));
    if (!state->writing) {
      state->writing = true;
      spawn_task(state, write_outbox(state));
    }
    co_return Result<void>{};
  }

  void cancel_request(const json&) override {}  // nothing waits per request on a pipe
  void initialized(const std::string&) override {}

  asio::awaitable<void> close() override {
    if (!state_) co_return;
    auto state = state_;
    if (state->closing) co_return;
    state->closing = true;
    const auto grace = server_.close_grace;
    const auto exited = [&] { return state->status.has_value(); };
    // The spec's order: close stdin, wait, SIGTERM, wait, SIGKILL.
    co_await state->wait_until([&] { return !state->writing; }, Clock::now() + grace);
    boost::system::error_code ignored;
    state->in.close(ignored);
    if (!co_await state->wait_until(exited, Clock::now() + grace)) {
      state->signal(SIGTERM);
      if (!co_await state->wait_until(exited, Clock::now() + grace)) {
        state->signal(SIGKILL);
        co_await state->wait_until(exited, Clock::time_point::max());
      }
    }
    co_await state->wait_until([&] { return state->output_done && state->stderr_done; },
                               Clock::now() + grace);
  }

  std::string describe() const override { return "stdio:" + server_.command; }

 private:
  StdioServer server_;
  StatePtr state_;
};

}  // namespace

std::unique_ptr<Transport> make_stdio_transport(StdioServer server) {
  return std::make_unique<StdioTransport>(std::move(server));
}

}  // namespace ava::mcp
