#pragma once

#include <sys/types.h>

#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include "ava/base/error.hpp"
#include "ava/proc/spawn.hpp"

namespace ava::proc {

struct PtySize {
  unsigned short rows = 24;
  unsigned short cols = 80;
};

// A child on a pseudo-terminal, for interactive terminals. The child leads its
// own session (and process group) with the terminal as its controlling tty.
// Read its output from and write its input to terminal(); reads end with an
// error (EIO) once the child side is closed. Destroying a process that has
// not been waited for kills its group and reaps it.
class PtyProcess {
 public:
  // Uses argv, cwd and the environment fields of options; stream modes and
  // process-group settings do not apply to a terminal.
  static Result<PtyProcess> spawn(const boost::asio::any_io_executor& executor,
                                  const SpawnOptions& options, PtySize size = {});

  PtyProcess(PtyProcess&&) noexcept;
  PtyProcess& operator=(PtyProcess&&) noexcept;
  ~PtyProcess();

  pid_t pid() const;
  boost::asio::posix::stream_descriptor& terminal();
  Result<void> resize(PtySize size);
  Result<void> signal(int signal_number);  // to the child's process group
  // Completes when the child exits, and reaps it.
  boost::asio::awaitable<Result<ExitStatus>> wait();

 private:
  struct State;
  explicit PtyProcess(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace ava::proc
