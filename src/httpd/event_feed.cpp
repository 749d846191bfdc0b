#include "ava/httpd/event_feed.hpp"

#include "httpd/socket_batch.hpp"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ava::httpd {

namespace asio = boost::asio;

EventFeed::EventFeed(asio::any_io_executor fan_out, std::size_t max_bytes, std::size_t max_frames,
                     std::int64_t floor)
    : fan_out_executor_(std::move(fan_out)),
      max_bytes_(max_bytes),
      max_frames_(max_frames),
      floor_(floor),
      last_seq_(floor),
      fanned_(floor) {}

EventFeed::Listener::~Listener() {
  std::lock_guard lock(waiter_->mutex);
  waiter_->parked = false;
}

void EventFeed::wake(const std::shared_ptr<Waiter>& waiter) {
  waiter->wake_sent = true;
  // The timer belongs to its subscriber's strand: cancel it there.
  asio::post(waiter->timer.get_executor(), [waiter] { waiter->timer.cancel(); });
}

void EventFeed::publish(std::int64_t seq, std::string bytes) {
  std::vector<std::shared_ptr<Waiter>> woken;
  bool start_fan_out = false;
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
    // Waiters with a socket stay listed for the fan-out; the others wake.
    std::erase_if(waiters_, [&](std::shared_ptr<Waiter>& waiter) {
      if (waiter->socket >= 0) return false;
      woken.push_back(std::move(waiter));
      return true;
    });
    if (!waiters_.empty() && !fanning_) fanning_ = start_fan_out = true;
  }
  for (const auto& waiter : woken) {
    std::lock_guard lock(waiter->mutex);
    wake(waiter);
  }
  if (start_fan_out)
    asio::post(fan_out_executor_, [self = shared_from_this()] { self->fan_out(); });
}

// One round per feed at a time, so each subscriber gets its frames in
// order; a round's waiters are split into chunks that the pool's threads
// write in parallel. Rounds go on until the parked waiters were offered
// every frame.
void EventFeed::fan_out() {
  constexpr std::size_t chunk_size = 128;
  auto round = std::make_shared<Round>();
  {
    std::lock_guard lock(mutex_);
    if (closed_ || fanned_ >= last_seq_ || waiters_.empty()) {
      fanned_ = last_seq_;
      fanning_ = false;
      return;
    }
    round->from = fanned_;
    fanned_ = last_seq_;
    round->targets = waiters_;
  }
  const std::size_t count = round->targets.size();
  const std::size_t chunks = (count + chunk_size - 1) / chunk_size;
  round->chunks_left = chunks;
  auto write_chunk = [self = shared_from_this(), round](std::size_t chunk) {
    const auto slice = self->take_slice(*round);
    const std::size_t end = std::min(round->targets.size(), (chunk + 1) * chunk_size);
    const std::size_t begin = chunk * chunk_size;
    deliver(std::span(round->targets).subspan(begin, end - begin), *slice);
    self->finish_chunk(round);
  };
  for (std::size_t chunk = 1; chunk < chunks; ++chunk) {
    asio::post(fan_out_executor_, [write_chunk, chunk] { write_chunk(chunk); });
  }
  write_chunk(0);
}

void EventFeed::finish_chunk(const std::shared_ptr<Round>& round) {
  if (--round->chunks_left == 0) {
    asio::post(fan_out_executor_, [self = shared_from_this()] { self->fan_out(); });
  }
}

std::shared_ptr<const EventFeed::Slice> EventFeed::take_slice(Round& round) {
  std::vector<FramePtr> frames;
  auto slice = std::make_shared<Slice>();
  {
    std::lock_guard lock(mutex_);
    if (round.slice && round.slice->last() == last_seq_) return round.slice;
    // Frames the backlog dropped before they were offered cannot be written
    // here; waiters still short of them are woken to find out (`behind`).
    slice->from = std::max(round.from, floor_);
    auto first =
        std::upper_bound(frames_.begin(), frames_.end(), slice->from,
                         [](std::int64_t seq, const FramePtr& frame) { return seq < frame->seq; });
    frames.assign(first, frames_.end());
  }
  if (frames.size() == 1) slice->only = frames.front();
  for (const auto& frame : frames) {
    slice->seqs.push_back(frame->seq);
    slice->offsets.push_back(slice->joined.size());
    if (!slice->only) slice->joined += frame->bytes;
  }
  std::lock_guard lock(mutex_);
  if (!round.slice || round.slice->last() < slice->last()) round.slice = slice;
  return slice;
}

// Writes the slice's frames that each waiter lacks, in one batch of sends.
// Each waiter's lock is held until its send is done: its socket is the
// fan-out's only while it is parked.
void EventFeed::deliver(std::span<const std::shared_ptr<Waiter>> waiters, const Slice& slice) {
  std::vector<std::unique_lock<std::mutex>> locks;
  std::vector<SocketSend> sends;
  std::vector<const std::shared_ptr<Waiter>*> senders;
  locks.reserve(waiters.size());
  sends.reserve(waiters.size());
  senders.reserve(waiters.size());
  for (const auto& waiter : waiters) {
    std::unique_lock lock(waiter->mutex);
    if (!waiter->parked || waiter->wake_sent) continue;
    if (waiter->socket < 0 || waiter->after < slice.from) {
      wake(waiter);
      continue;
    }
    // Everything after the waiter's cursor, in one send. It may lack
    // nothing: a late chunk of the previous round can have served it already.
    const auto next = std::upper_bound(slice.seqs.begin(), slice.seqs.end(), waiter->after);
    if (next == slice.seqs.end()) continue;
    const auto offset = slice.offsets[static_cast<std::size_t>(next - slice.seqs.begin())];
    sends.push_back({.socket = waiter->socket, .bytes = slice.bytes().substr(offset)});
    senders.push_back(&waiter);
    locks.push_back(std::move(lock));
  }
  send_batch(sends);
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const auto& waiter = *senders[i];
    const SocketSend& sent = sends[i];
    if (sent.taken < 0) {
      waiter->gone = true;
      wake(waiter);
      continue;
    }
    waiter->after = slice.seqs.back();
    if (sent.taken == static_cast<std::ptrdiff_t>(sent.bytes.size())) continue;
    // Part of the bytes are on the wire: the subscriber writes the rest
    // before anything else.
    waiter->unsent.assign(sent.bytes.substr(static_cast<std::size_t>(sent.taken)));
    wake(waiter);
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
  for (const auto& waiter : woken) {
    std::lock_guard lock(waiter->mutex);
    wake(waiter);
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

asio::awaitable<EventFeed::Wake> EventFeed::wait(Listener& listener, std::int64_t after,
                                                 std::chrono::milliseconds timeout) {
  const std::shared_ptr<Waiter>& waiter = listener.waiter_;
  Wake wake;
  wake.after = after;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || last_seq_ > after) {
      wake.woken = true;
      co_return wake;
    }
    std::lock_guard waiter_lock(waiter->mutex);
    waiter->parked = true;
    waiter->wake_sent = false;
    waiter->gone = false;
    waiter->after = after;
    waiter->unsent.clear();
    waiters_.push_back(waiter);
  }
  // Cancels are posted to this strand, so none can run before the wait
  // below has started.
  waiter->timer.expires_after(timeout);
  auto [ec] = co_await waiter->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  {
    std::lock_guard lock(mutex_);
    std::erase(waiters_, waiter);  // still listed after a timeout or a direct write
  }
  std::lock_guard waiter_lock(waiter->mutex);
  waiter->parked = false;
  wake.after = waiter->after;
  wake.unsent = std::move(waiter->unsent);
  wake.gone = waiter->gone;
  // A timeout asks for a keep-alive even when frames were written directly
  // meanwhile: at most one extra comment per interval, and never a silence
  // longer than the interval after the last frame.
  wake.woken = ec == asio::error::operation_aborted;
  co_return wake;
}

asio::awaitable<bool> EventFeed::wait(std::int64_t after, std::chrono::milliseconds timeout) {
  Listener listener(co_await asio::this_coro::executor);
  auto wake = co_await wait(listener, after, timeout);
  co_return wake.woken;
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

}  // namespace ava::httpd
