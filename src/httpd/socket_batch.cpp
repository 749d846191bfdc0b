#include "httpd/socket_batch.hpp"

#include <liburing.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>

namespace ava::httpd {

namespace {

constexpr unsigned ring_entries = 256;
constexpr int send_flags = MSG_DONTWAIT | MSG_NOSIGNAL;

std::atomic<bool> io_uring_allowed{true};

std::ptrdiff_t taken_from(std::ptrdiff_t result, int error) {
  if (result >= 0) return result;
  return error == EAGAIN || error == EWOULDBLOCK || error == EINTR ? 0 : -1;
}

void send_each(std::span<SocketSend> sends) {
  for (auto& send : sends) {
    ssize_t result = 0;
    do {
      result = ::send(send.socket, send.bytes.data(), send.bytes.size(), send_flags);
    } while (result < 0 && errno == EINTR);
    send.taken = taken_from(result, errno);
  }
}

// One ring per thread: a batch is submitted and reaped by the thread that
// makes it, so rings need no lock.
class Ring {
 public:
  Ring() {
    // Sends complete within the submission; should one ever complete later,
    // its completion waits for this thread's next call instead of
    // interrupting it (kernels before 6.1 lack the flags: none then).
    ready_ = ::io_uring_queue_init(ring_entries, &ring_,
                                   IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN) == 0 ||
             ::io_uring_queue_init(ring_entries, &ring_, 0) == 0;
  }
  ~Ring() {
    if (ready_) ::io_uring_queue_exit(&ring_);
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  bool ready() const { return ready_; }

  // At most ring_entries sends. Should the ring fail, it is given up and
  // what it did not take goes out the plain way.
  void send(std::span<SocketSend> sends) {
    for (std::size_t i = 0; i < sends.size(); ++i) {
      io_uring_sqe* entry = ::io_uring_get_sqe(&ring_);
      // MSG_DONTWAIT makes a full socket complete with -EAGAIN at once
      // rather than wait for room.
      ::io_uring_prep_send(entry, sends[i].socket, sends[i].bytes.data(), sends[i].bytes.size(),
                           send_flags);
      ::io_uring_sqe_set_data64(entry, i);
    }
    // The kernel stops a submission at an entry it rejects (which still
    // completes, with the error); the rest stay queued for the next call.
    std::size_t in_flight = 0;
    while (in_flight < sends.size()) {
      const int submitted = ::io_uring_submit(&ring_);
      if (submitted == -EINTR) continue;
      if (submitted <= 0) {
        give_up(sends, in_flight);
        return;
      }
      in_flight += static_cast<std::size_t>(submitted);
    }
    if (!reap(sends, sends.size())) close();
  }

 private:
  // A send whose completion cannot be had counts as a gone peer: its
  // stream ends and the client resumes from its cursor, rather than risk
  // bytes written twice. False if the ring failed: a completion left in it
  // would be taken for the next batch's, so it must not be used again.
  bool reap(std::span<SocketSend> sends, std::size_t count) {
    for (auto& send : sends.first(count)) send.taken = -1;
    for (std::size_t seen = 0; seen < count; ++seen) {
      io_uring_cqe* completion = nullptr;
      int waited = 0;
      do {
        waited = ::io_uring_wait_cqe(&ring_, &completion);
      } while (waited == -EINTR);
      if (waited != 0) return false;
      const auto index = static_cast<std::size_t>(::io_uring_cqe_get_data64(completion));
      const int result = completion->res;
      ::io_uring_cqe_seen(&ring_, completion);
      if (index < sends.size()) sends[index].taken = taken_from(result, -result);
    }
    return true;
  }

  void give_up(std::span<SocketSend> sends, std::size_t submitted) {
    reap(sends, submitted);
    close();  // drops the entries it did not take
    send_each(sends.subspan(submitted));
  }

  void close() {
    ::io_uring_queue_exit(&ring_);
    ready_ = false;
  }

  io_uring ring_{};
  bool ready_ = false;
};

Ring& this_thread_ring() {
  thread_local Ring ring;
  return ring;
}

}  // namespace

void send_batch(std::span<SocketSend> sends) {
  while (!sends.empty()) {
    Ring& ring = this_thread_ring();
    if (!io_uring_allowed.load(std::memory_order_relaxed) || !ring.ready()) {
      send_each(sends);
      return;
    }
    const auto batch = sends.first(std::min<std::size_t>(sends.size(), ring_entries));
    ring.send(batch);
    sends = sends.subspan(batch.size());
  }
}

void allow_io_uring_sends(bool allowed) {
  io_uring_allowed.store(allowed, std::memory_order_relaxed);
}

bool io_uring_sends_available() {
  return io_uring_allowed.load(std::memory_order_relaxed) && this_thread_ring().ready();
}

}  // namespace ava::httpd
