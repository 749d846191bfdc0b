#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace ava::httpd {

// One non-blocking send of a batch.
struct SocketSend {
  int socket = -1;
  std::string_view bytes;
  // Out: the bytes the socket took at once (0 when its buffer was full), or
  // -1 when the peer is gone.
  std::ptrdiff_t taken = 0;
};

// Makes every send of `sends` without waiting; callable from any thread.
//
// With io_uring, one system call submits a whole batch. An event for 1,000
// subscribers is 1,000 small sends, and in this VM the system call around
// each costs nearly as much as its TCP work: batches cut the backend's CPU
// per fan-out round by about a third (docs/performance.md). Where io_uring
// is unavailable (an old kernel, a sandbox, `kernel.io_uring_disabled`)
// each is a send().
void send_batch(std::span<SocketSend> sends);

// Whether send_batch may use io_uring (process-wide; on by default). Tests
// switch it off to cover the plain path.
void allow_io_uring_sends(bool allowed);
// Whether the calling thread's batches would go through io_uring.
bool io_uring_sends_available();

}  // namespace ava::httpd
