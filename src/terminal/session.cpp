#include "ava/terminal/session.hpp"

#include <csignal>
#include <utility>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace ava::terminal {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
constexpr auto no_throw = asio::as_tuple(asio::use_awaitable);

Result<std::unique_ptr<Session>> Session::start(const asio::any_io_executor& executor,
                                                const Options& options) {
  proc::SpawnOptions spawn;
  spawn.argv = options.command.empty() ? login_shell_command() : options.command;
  spawn.cwd = options.cwd;
  // The server may hold provider keys in its environment; a shell the user
  // opens gets theirs from their own profile instead.
  spawn.scrub_secrets = true;
  spawn.env["TERM"] = "xterm-256color";
  spawn.env["COLORTERM"] = "truecolor";
  spawn.env["TERM_PROGRAM"] = "ava";
  spawn.env_remove = {"COLUMNS", "LINES"};
  AVA_TRY(auto process, proc::PtyProcess::spawn(executor, spawn, options.size));
  return std::unique_ptr<Session>(new Session(std::move(process)));
}

Session::Session(proc::PtyProcess process) : process_(std::move(process)) {}

Session::~Session() {
  // Out of the set before the process is reaped, so hang_up_all never
  // signals a pid that may already belong to someone else.
  if (terminals_ != nullptr) terminals_->forget(this);
}

pid_t Session::pid() const { return process_.pid(); }

asio::awaitable<Result<std::string>> Session::read() {
  std::string chunk(max_chunk, '\0');
  auto [error, count] = co_await process_.terminal().async_read_some(asio::buffer(chunk), no_throw);
  if (count > 0) {
    chunk.resize(count);
    co_return chunk;
  }
  // Linux answers EIO once the last descriptor of the shell's side closes.
  if (error == asio::error::operation_aborted) {
    co_return fail(ErrorCode::cancelled, "terminal read cancelled");
  }
  co_return fail(ErrorCode::io, "the terminal closed");
}

asio::awaitable<Result<void>> Session::write(std::string_view input) {
  auto [error, count] = co_await asio::async_write(
      process_.terminal(), asio::buffer(input.data(), input.size()), no_throw);
  if (error) co_return fail(ErrorCode::io, "terminal write: " + error.message());
  co_return Result<void>{};
}

Result<void> Session::resize(proc::PtySize size) { return process_.resize(size); }

void Session::cancel() {
  boost::system::error_code ignored;
  process_.terminal().cancel(ignored);
}

void Session::hang_up() { std::ignore = process_.signal(SIGHUP); }

asio::awaitable<proc::ExitStatus> Session::finish(std::chrono::milliseconds grace) {
  asio::steady_timer deadline(co_await asio::this_coro::executor, grace);
  auto first = co_await (process_.wait() || deadline.async_wait(no_throw));
  if (first.index() == 0) {
    auto& status = std::get<0>(first);
    if (status) co_return *status;
  }
  std::ignore = process_.signal(SIGKILL);
  auto status = co_await process_.wait();
  co_return status ? *status : proc::ExitStatus{.code = -1, .signal = SIGKILL};
}

Result<std::unique_ptr<Session>> Terminals::start(const asio::any_io_executor& executor,
                                                  const Options& options) {
  // One lock across the start: two requests at the limit cannot both pass
  // (forkpty returns at once, so the lock is short).
  std::lock_guard lock(mutex_);
  if (sessions_.size() >= limit_) {
    return fail(ErrorCode::unavailable,
                "too many terminals are open (the limit is " + std::to_string(limit_) + ")");
  }
  AVA_TRY(auto session, Session::start(executor, options));
  session->terminals_ = this;
  sessions_.push_back(session.get());
  return session;
}

std::size_t Terminals::open() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void Terminals::hang_up_all() {
  std::lock_guard lock(mutex_);
  for (Session* session : sessions_) session->hang_up();
}

void Terminals::forget(Session* session) {
  std::lock_guard lock(mutex_);
  std::erase(sessions_, session);
}

}  // namespace ava::terminal
