#pragma once

#include <pthread.h>

#include <csignal>

namespace ava::cli {

// Signals belong to the terminal's thread in `ava chat` (Ctrl-C must
// interrupt its read), so the threads started while this lives have
// SIGINT, SIGTERM and SIGHUP blocked. Children get a clean mask from proc's
// spawn.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace ava::cli
