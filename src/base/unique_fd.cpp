#include "ava/base/unique_fd.hpp"

#include <unistd.h>

namespace ava::base {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace ava::base
