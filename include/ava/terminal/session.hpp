#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/proc/pty.hpp"

// Interactive terminals (issue: desktop part 2): a shell on a pseudo-terminal
// that a person types into, through the web UI or the desktop. Unlike the
// agent's bash tool it has no timeout, no sandbox and no capture limit: its
// output streams to one viewer, and it ends when the viewer goes.
namespace ava::terminal {

// The user's shell as a login shell: the passwd entry's shell, else $SHELL,
// else /bin/sh (each only if it is an absolute path to an executable).
std::vector<std::string> login_shell_command();

struct Options {
  std::filesystem::path cwd;
  proc::PtySize size;
  std::vector<std::string> command;  // empty: login_shell_command()
};

class Terminals;

// One shell on its pseudo-terminal. Use it from one strand: one read() and
// one write() may be in progress at once. Destroying it kills the shell's
// process group.
class Session {
 public:
  // The most one read() returns: the view gets the output in pieces this size.
  static constexpr std::size_t max_chunk = std::size_t{64} * 1024;

  // The terminal starts with TERM=xterm-256color and the server's
  // environment minus anything that looks like a credential.
  static Result<std::unique_ptr<Session>> start(const boost::asio::any_io_executor& executor,
                                                const Options& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  pid_t pid() const;
  // The next bytes the terminal printed; an error once the shell's side is
  // closed (it exited, with all its output read).
  boost::asio::awaitable<Result<std::string>> read();
  // Waits while the terminal's input queue is full (the shell not reading).
  boost::asio::awaitable<Result<void>> write(std::string_view input);
  Result<void> resize(proc::PtySize size);
  // Ends the read() and write() in progress with an error.
  void cancel();
  // SIGHUP to the shell's process group, as when a terminal window closes.
  void hang_up();
  // How the shell ended, once read() has reported the end: waits up to
  // `grace` for it to exit, then kills its group.
  boost::asio::awaitable<proc::ExitStatus> finish(std::chrono::milliseconds grace);

 private:
  explicit Session(proc::PtyProcess process);
  proc::PtyProcess process_;
  Terminals* terminals_ = nullptr;  // set by Terminals::admit
  friend class Terminals;
};

// The terminals one server runs: at most `limit` at once, and all of them
// hung up when the server shuts down. Thread-safe.
class Terminals {
 public:
  explicit Terminals(std::size_t limit) : limit_(limit) {}
  // Starts a terminal counted here; unavailable at the limit.
  Result<std::unique_ptr<Session>> start(const boost::asio::any_io_executor& executor,
                                         const Options& options);
  std::size_t open() const;
  // Hangs up every terminal (their viewers then see them end).
  void hang_up_all();

 private:
  friend class Session;
  void forget(Session* session);
  mutable std::mutex mutex_;
  std::size_t limit_;
  std::vector<Session*> sessions_;
};

}  // namespace ava::terminal
