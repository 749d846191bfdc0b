#include "ava/proc/pty.hpp"

#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <tuple>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "sys.hpp"

namespace ava::proc {

namespace asio = boost::asio;

struct PtyProcess::State {
  State(const asio::any_io_executor& executor, pid_t child, int master, int pidfd)
      : pid(child), terminal(executor, master), exit_watch(executor, pidfd) {}
  pid_t pid;
  asio::posix::stream_descriptor terminal;
  asio::posix::stream_descriptor exit_watch;
  bool reaped = false;
};

namespace {

// Runs in the forked child: async-signal-safe calls only, then exec.
[[noreturn]] void exec_child(const char* cwd, char** argv, char** envp) {
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    ::signal(signal_number, SIG_DFL);
  }
  ::closefrom(3);
  if (cwd != nullptr && ::chdir(cwd) != 0) ::_exit(127);
  ::execvpe(argv[0], argv, envp);
  ::_exit(127);
}

}  // namespace

Result<PtyProcess> PtyProcess::spawn(const asio::any_io_executor& executor,
                                     const SpawnOptions& options, PtySize size) {
  if (options.argv.empty()) return fail(ErrorCode::invalid_argument, "pty spawn: empty argv");
  sys::ignore_sigpipe();
  auto argv_strings = options.argv;
  auto env_strings = build_environment(options);
  auto argv = sys::c_strings(argv_strings);
  auto envp = sys::c_strings(env_strings);
  const std::string cwd = options.cwd.string();
  winsize window{.ws_row = size.rows, .ws_col = size.cols, .ws_xpixel = 0, .ws_ypixel = 0};

  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &window);
  if (pid < 0) return base::fail_errno("forkpty", errno);
  if (pid == 0) exec_child(cwd.empty() ? nullptr : cwd.c_str(), argv.data(), envp.data());

  base::UniqueFd master_fd(master);
  ::fcntl(master, F_SETFD, FD_CLOEXEC);
  auto pidfd = sys::pidfd_open(pid);
  if (!pidfd) {
    ::kill(pid, SIGKILL);
    std::ignore = reap(pid);
    return std::unexpected(std::move(pidfd).error());
  }
  return PtyProcess(std::make_unique<State>(executor, pid, master_fd.release(), pidfd->release()));
}

PtyProcess::PtyProcess(std::unique_ptr<State> state) : state_(std::move(state)) {}
PtyProcess::PtyProcess(PtyProcess&&) noexcept = default;
PtyProcess& PtyProcess::operator=(PtyProcess&&) noexcept = default;

PtyProcess::~PtyProcess() {
  if (!state_ || state_->reaped) return;
  // forkpty made the child a session leader, so its pid is also its group.
  std::ignore = signal_group(state_->pid, SIGKILL);
  std::ignore = reap(state_->pid);
}

pid_t PtyProcess::pid() const { return state_->pid; }

asio::posix::stream_descriptor& PtyProcess::terminal() { return state_->terminal; }

Result<void> PtyProcess::resize(PtySize size) {
  winsize window{.ws_row = size.rows, .ws_col = size.cols, .ws_xpixel = 0, .ws_ypixel = 0};
  if (::ioctl(state_->terminal.native_handle(), TIOCSWINSZ, &window) != 0) {
    return base::fail_errno("resize terminal", errno);
  }
  return {};
}

Result<void> PtyProcess::signal(int signal_number) {
  return signal_group(state_->pid, signal_number);
}

asio::awaitable<Result<ExitStatus>> PtyProcess::wait() {
  if (state_->reaped) co_return fail(ErrorCode::conflict, "pty process already reaped");
  siginfo_t info{};
  const bool exited =
      ::waitid(P_PID, static_cast<id_t>(state_->pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
      info.si_pid == state_->pid;
  if (!exited) {
    auto [error] = co_await state_->exit_watch.async_wait(asio::posix::stream_descriptor::wait_read,
                                                          asio::as_tuple(asio::use_awaitable));
    if (error) co_return fail(ErrorCode::cancelled, "waiting for the terminal process ended");
  }
  auto status = reap(state_->pid);
  state_->reaped = true;
  co_return status;
}

}  // namespace ava::proc
