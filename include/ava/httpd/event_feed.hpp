#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

namespace ava::httpd {

// Encoded SSE frames with increasing sequence numbers, kept in one bounded
// backlog shared by every subscriber of a stream: a frame is encoded once
// however many clients follow it, and memory does not grow with slow
// clients. A subscriber that falls behind the backlog is cut (it
// reconnects from its cursor and replays from the log). Thread-safe.
//
// A subscriber that waits with its socket (see Listener) is not woken for
// each frame: while it waits, one fan-out task per feed writes new frames
// straight to its socket, so an event for a thousand subscribers costs a
// thousand non-blocking sends (submitted in batches, see send_batch), not a
// thousand coroutine wake-ups and timer re-arms. Only a socket that does
// not take a whole frame, or a peer that is gone, wakes its subscriber.
class EventFeed : public std::enable_shared_from_this<EventFeed> {
 public:
  struct Frame {
    std::int64_t seq = 0;
    std::string bytes;  // one or more complete SSE frames
  };
  using FramePtr = std::shared_ptr<const Frame>;

  // `fan_out`: where direct writes run. `floor`: the feed holds nothing at
  // or before this seq (what came earlier must be read elsewhere, e.g. from
  // the log). Make it with std::make_shared: the fan-out task keeps it alive.
  EventFeed(boost::asio::any_io_executor fan_out, std::size_t max_bytes, std::size_t max_frames,
            std::int64_t floor = 0);

  void publish(std::int64_t seq, std::string bytes);
  // Called once the source is subscribed: everything up to `known_last` is
  // stored elsewhere (the log). If frames arrived in between, the feed
  // starts at the first of them instead.
  void start_after(std::int64_t known_last);
  // Ends every subscriber's stream (shutdown, conversation unloaded).
  void close();

  enum class Outcome { frames, nothing_yet, behind, closed };
  struct Batch {
    Outcome outcome = Outcome::nothing_yet;
    std::vector<FramePtr> frames;
  };
  // Frames with seq > after (at most max_frames), or why there are none:
  // `behind` when frames after `after` were already dropped.
  Batch take(std::int64_t after, std::size_t max_frames = 256) const;
  class Listener;
  struct Wake {
    bool woken = false;      // false: the timeout passed
    std::int64_t after = 0;  // the cursor, moved on by frames written directly
    std::string unsent;      // the tail of a frame the socket did not take: write it first
    bool gone = false;       // a direct write found the peer gone
  };
  // Completes when a frame after `after` exists, the feed closes or
  // `timeout` passes, whichever is first. With a socket, frames
  // published meanwhile are written and the cursor moves on; the wait ends
  // only when a frame did not fit, the peer is gone, the feed closes or
  // the timeout passes. May also end early (a wake-up meant for an earlier
  // wait); the caller takes again. Call on the strand the listener was
  // made for, one wait at a time.
  boost::asio::awaitable<Wake> wait(Listener& listener, std::int64_t after,
                                    std::chrono::milliseconds timeout);
  // The same with a listener made for this one wait.
  boost::asio::awaitable<bool> wait(std::int64_t after, std::chrono::milliseconds timeout);

  std::int64_t floor() const;
  std::int64_t last_seq() const;
  std::size_t subscribers_waiting() const;

 private:
  struct Waiter {
    Waiter(const boost::asio::any_io_executor& executor, int socket_handle)
        : timer(executor), socket(socket_handle) {}
    boost::asio::steady_timer timer;
    const int socket;  // -1: no direct writes
    // Guards what follows. Taken while holding the feed's mutex, never the
    // other way round.
    std::mutex mutex;
    bool parked = false;     // in wait(): the socket is the fan-out's to write
    bool wake_sent = false;  // the timer's cancel is on its way
    bool gone = false;
    std::int64_t after = 0;
    std::string unsent;
  };
  // What one chunk of a fan-out round writes: every frame after `from` the
  // feed held when the chunk began, in one piece, so that a subscriber gets
  // all it lacks in one send.
  struct Slice {
    std::int64_t from = 0;
    std::vector<std::int64_t> seqs;    // of the frames, in order
    std::vector<std::size_t> offsets;  // where each frame starts in the bytes
    FramePtr only;                     // the frame itself when there is one (no copy)
    std::string joined;                // otherwise their bytes joined
    std::string_view bytes() const { return only ? std::string_view(only->bytes) : joined; }
    std::int64_t last() const { return seqs.empty() ? from : seqs.back(); }
  };
  // A fan-out round: the waiters parked when it began, offered every frame
  // after `from`. A chunk that starts after more frames arrived takes a
  // newer slice, so the round's later subscribers get those frames too.
  struct Round {
    std::int64_t from = 0;
    std::vector<std::shared_ptr<Waiter>> targets;
    std::atomic<std::size_t> chunks_left{0};
    std::shared_ptr<const Slice> slice;  // the newest taken; guarded by the feed's mutex
  };
  static void wake(const std::shared_ptr<Waiter>& waiter);  // waiter->mutex held
  void fan_out();
  void finish_chunk(const std::shared_ptr<Round>& round);
  std::shared_ptr<const Slice> take_slice(Round& round);
  static void deliver(std::span<const std::shared_ptr<Waiter>> waiters, const Slice& slice);

  friend class Listener;
  const boost::asio::any_io_executor fan_out_executor_;
  const std::size_t max_bytes_;
  const std::size_t max_frames_;
  mutable std::mutex mutex_;
  std::deque<FramePtr> frames_;
  std::size_t bytes_ = 0;
  std::int64_t floor_;
  std::int64_t last_seq_;
  bool closed_ = false;
  std::vector<std::shared_ptr<Waiter>> waiters_;
  std::int64_t fanned_;   // every frame up to here was offered to the parked waiters
  bool fanning_ = false;  // a fan-out task is posted or running
};

// One subscriber's wake-up, made once per stream on the subscriber's strand
// and reused by every wait. `socket` (-1 for none) is a connected stream
// socket the fan-out may write to, from any thread, while a wait() runs
// and never otherwise; it must stay open while the listener lives.
class EventFeed::Listener {
 public:
  explicit Listener(const boost::asio::any_io_executor& executor, int socket = -1)
      : waiter_(std::make_shared<Waiter>(executor, socket)) {}
  // A coroutine destroyed inside wait() must not leave its socket to the fan-out.
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

 private:
  friend class EventFeed;
  std::shared_ptr<Waiter> waiter_;
};

}  // namespace ava::httpd
