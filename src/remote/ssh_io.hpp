// Private to the remote package: the state behind an SshSession and the
// way every libssh2 call is driven without blocking.
#pragma once

#include <libssh2.h>

#include <chrono>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "ava/base/error.hpp"
#include "ava/remote/ssh_session.hpp"

namespace ava::remote {

using Clock = std::chrono::steady_clock;

struct SshSession::State {
  explicit State(const boost::asio::any_io_executor& executor)
      : socket(executor), progress(executor) {
    progress.expires_at(Clock::time_point::max());
  }
  ~State();

  boost::asio::ip::tcp::socket socket;
  // Cancelled whenever a libssh2 call made progress: a call for one channel
  // may read the packets another channel waits for, and that channel must
  // retry rather than wait for bytes that already arrived.
  boost::asio::steady_timer progress;
  LIBSSH2_SESSION* session = nullptr;
  SshTarget target;
  HostKey host_key;
  std::string signed_in_with;
  std::chrono::seconds timeout{20};
  bool broken = false;  // the socket failed: every call from now on fails
};

struct SshChannel::Impl {
  SshSession::State* state = nullptr;
  LIBSSH2_CHANNEL* channel = nullptr;
  ~Impl();
};

// For waits that have no deadline of their own (a forwarded stream).
inline constexpr Clock::time_point no_deadline = Clock::time_point::max();

// The session's last error text, for messages.
std::string last_error(const SshSession::State& state);

// Wakes every coroutine waiting on the connection.
void notify_progress(SshSession::State& state);

// Waits until the socket is ready in the direction libssh2 is blocked on,
// or another call made progress; timeout when `deadline` passes first.
boost::asio::awaitable<Result<void>> wait_socket(SshSession::State& state,
                                                 Clock::time_point deadline);

// Calls `call` until it stops answering LIBSSH2_ERROR_EAGAIN; its last
// answer (0 or a count for success, a negative libssh2 error otherwise).
template <class Call>
boost::asio::awaitable<Result<long>> retry(SshSession::State& state, Clock::time_point deadline,
                                           Call call) {
  for (;;) {
    long rc = static_cast<long>(call());
    if (rc != LIBSSH2_ERROR_EAGAIN) {
      if (rc >= 0) notify_progress(state);
      co_return rc;
    }
    AVA_CO_TRY_VOID(co_await wait_socket(state, deadline));
  }
}

// Signs in with ssh-agent's keys, then the identity files (sign_in.cpp).
boost::asio::awaitable<Result<void>> sign_in(SshSession::State& state,
                                             const ConnectOptions& options,
                                             Clock::time_point deadline);

}  // namespace ava::remote
