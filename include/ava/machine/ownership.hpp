#pragma once

#include <sys/types.h>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/base/unique_fd.hpp"

namespace ava::machine {

// Only one API server (the backend or `ava --serve`) may own an AVA_HOME. It
// holds an exclusive flock on AVA_HOME/owner.lock for its lifetime and
// writes its pid into the file; the kernel drops the lock when it dies.
inline constexpr std::string_view owner_lock_name = "owner.lock";

struct Owner {
  pid_t pid = 0;  // 0 when the file does not say
};

// Who holds the home's owner lock right now, without taking it.
Result<std::optional<Owner>> probe_owner(const base::Home& home);

// The lock itself, held by the API server for its lifetime. A lock file left
// by a killed server is simply taken over: the kernel released its lock.
class OwnerLock {
 public:
  // conflict, naming the owner's pid, when another process holds it.
  static Result<OwnerLock> acquire(const base::Home& home);
  OwnerLock(OwnerLock&&) noexcept = default;
  OwnerLock& operator=(OwnerLock&&) = delete;
  OwnerLock(const OwnerLock&) = delete;
  ~OwnerLock() = default;  // closing the descriptor drops the flock

 private:
  explicit OwnerLock(base::UniqueFd fd) : fd_(std::move(fd)) {}
  base::UniqueFd fd_;
};

}  // namespace ava::machine
