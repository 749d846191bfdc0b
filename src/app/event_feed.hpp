#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

namespace ava::app {

// Encoded SSE frames with increasing sequence numbers, kept in one bounded
// backlog shared by every subscriber of a stream: a frame is encoded once
// however many clients follow it, and memory does not grow with slow
// clients. A subscriber that falls behind the backlog is cut (it
// reconnects from its cursor and replays from the log). Thread-safe.
class EventFeed {
 public:
  struct Frame {
    std::int64_t seq = 0;
    std::string bytes;  // one or more complete SSE frames
  };
  using FramePtr = std::shared_ptr<const Frame>;

  // `floor`: the feed holds nothing at or before this seq (what came
  // earlier must be read elsewhere, e.g. from the log).
  EventFeed(std::size_t max_bytes, std::size_t max_frames, std::int64_t floor = 0);

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
  // Completes when a frame after `after` exists, the feed closes or
  // `timeout` passes, whichever is first: true unless the timeout passed.
  // May also return true early (a wake-up meant for an earlier wait); the
  // caller takes again. Call on the strand the listener was made for.
  boost::asio::awaitable<bool> wait(Listener& listener, std::int64_t after,
                                    std::chrono::milliseconds timeout);
  // The same with a listener made for this one wait.
  boost::asio::awaitable<bool> wait(std::int64_t after, std::chrono::milliseconds timeout);

  std::int64_t floor() const;
  std::int64_t last_seq() const;
  std::size_t subscribers_waiting() const;

 private:
  struct Waiter {
    explicit Waiter(const boost::asio::any_io_executor& executor) : timer(executor) {}
    boost::asio::steady_timer timer;
  };

  friend class Listener;
  const std::size_t max_bytes_;
  const std::size_t max_frames_;
  mutable std::mutex mutex_;
  std::deque<FramePtr> frames_;
  std::size_t bytes_ = 0;
  std::int64_t floor_;
  std::int64_t last_seq_;
  bool closed_ = false;
  std::vector<std::shared_ptr<Waiter>> waiters_;
};

// One subscriber's wake-up, made once per stream on the subscriber's strand
// and reused by every wait: a publish to a thousand subscribers then costs
// a thousand posts, not a thousand timers made and destroyed.
class EventFeed::Listener {
 public:
  explicit Listener(const boost::asio::any_io_executor& executor)
      : waiter_(std::make_shared<Waiter>(executor)) {}

 private:
  friend class EventFeed;
  std::shared_ptr<Waiter> waiter_;
};

}  // namespace ava::app
