#include "app/event_feed.hpp"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ava::app {

namespace asio = boost::asio;

EventFeed::EventFeed(std::size_t max_bytes, std::size_t max_frames, std::int64_t floor)
    : max_bytes_(max_bytes), max_frames_(max_frames), floor_(floor), last_seq_(floor) {}

void EventFeed::publish(std::int64_t seq, std::string bytes) {
  std::vector<std::shared_ptr<Waiter>> woken;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || seq <= last_seq_) return;  // a late duplicate of what the feed has
    bytes_ += bytes.size();
    frames_.push_back(std::make_shared<const Frame>(Frame{seq, std::move(bytes)}));
    last_seq_ = seq;
    // Keep at least the newest frame, however large.
    while (frames_.size() > 1 && (bytes_ > max_bytes_ || frames_.size() > max_frames_)) {
      bytes_ -= frames_.front()->bytes.size();
      floor_ = frames_.front()->seq;
      frames_.pop_front();
    }
    woken.swap(waiters_);
  }
  // Each waiter's timer belongs to its subscriber's strand: cancel it there.
  for (auto& waiter : woken) {
    auto& timer = waiter->timer;
    asio::post(timer.get_executor(), [waiter = std::move(waiter)] { waiter->timer.cancel(); });
  }
}

void EventFeed::start_after(std::int64_t known_last) {
  std::lock_guard lock(mutex_);
  if (frames_.empty()) {
    floor_ = std::max(floor_, known_last);
    last_seq_ = std::max(last_seq_, floor_);
  } else {
    floor_ = frames_.front()->seq - 1;
  }
}

void EventFeed::close() {
  std::vector<std::shared_ptr<Waiter>> woken;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    woken.swap(waiters_);
  }
  for (auto& waiter : woken) {
    auto& timer = waiter->timer;
    asio::post(timer.get_executor(), [waiter = std::move(waiter)] { waiter->timer.cancel(); });
  }
}

EventFeed::Batch EventFeed::take(std::int64_t after, std::size_t max_frames) const {
  Batch batch;
  std::lock_guard lock(mutex_);
  if (after < floor_) {
    batch.outcome = Outcome::behind;
    return batch;
  }
  auto first =
      std::upper_bound(frames_.begin(), frames_.end(), after,
                       [](std::int64_t seq, const FramePtr& frame) { return seq < frame->seq; });
  for (auto it = first; it != frames_.end() && batch.frames.size() < max_frames; ++it) {
    batch.frames.push_back(*it);
  }
  if (!batch.frames.empty()) {
    batch.outcome = Outcome::frames;
  } else {
    batch.outcome = closed_ ? Outcome::closed : Outcome::nothing_yet;
  }
  return batch;
}

asio::awaitable<bool> EventFeed::wait(Listener& listener, std::int64_t after,
                                      std::chrono::milliseconds timeout) {
  const std::shared_ptr<Waiter>& waiter = listener.waiter_;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || last_seq_ > after) co_return true;
    waiters_.push_back(waiter);
  }
  // publish() posts the cancel to this strand, so it cannot run before the
  // wait below has started.
  waiter->timer.expires_after(timeout);
  auto [ec] = co_await waiter->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  {
    std::lock_guard lock(mutex_);
    std::erase(waiters_, waiter);  // still listed after a timeout
  }
  co_return ec == asio::error::operation_aborted;
}

asio::awaitable<bool> EventFeed::wait(std::int64_t after, std::chrono::milliseconds timeout) {
  Listener listener(co_await asio::this_coro::executor);
  co_return co_await wait(listener, after, timeout);
}

std::int64_t EventFeed::floor() const {
  std::lock_guard lock(mutex_);
  return floor_;
}

std::int64_t EventFeed::last_seq() const {
  std::lock_guard lock(mutex_);
  return last_seq_;
}

std::size_t EventFeed::subscribers_waiting() const {
  std::lock_guard lock(mutex_);
  return waiters_.size();
}

}  // namespace ava::app
