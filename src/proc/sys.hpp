#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/unique_fd.hpp"

// Private syscall wrappers of the proc package, one per call.
namespace ava::proc::sys {

struct Pipe {
  base::UniqueFd read;
  base::UniqueFd write;
};

// pipe2 with O_CLOEXEC on both ends.
Result<Pipe> make_pipe();

// A pidfd (Linux 5.3): readable once the process exits, so exits are awaited
// with the reactor instead of SIGCHLD handlers or a thread per child.
Result<base::UniqueFd> pidfd_open(pid_t pid);

// Writing to a pipe whose reader died raises SIGPIPE, which would kill the
// whole daemon; the process ignores it once (children get default handling).
void ignore_sigpipe();

// A null-terminated char* array over strings, for exec's argv and envp.
std::vector<char*> c_strings(std::vector<std::string>& strings);

}  // namespace ava::proc::sys
