#include "ava/session/follower.hpp"

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/session/codec.hpp"
#include "session/frame.hpp"

namespace ava::session {

namespace asio = boost::asio;

LogFollower::LogFollower(std::filesystem::path path, int fd, Seq after, const ScanOptions& options)
    : path_(std::move(path)),
      fd_(fd),
      after_(after),
      last_seq_(after),
      max_record_(options.max_record),
      max_content_(std::max(options.max_frame_content, options.max_record + 1)),
      decoder_(std::make_unique<FrameDecoder>(max_content_)) {}

LogFollower::~LogFollower() {
  if (fd_ >= 0) ::close(fd_);
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
}

Result<std::unique_ptr<LogFollower>> LogFollower::open(const std::filesystem::path& path, Seq after,
                                                       const ScanOptions& options) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::fail_errno("open session log " + path.string(), errno);
  return std::unique_ptr<LogFollower>(new LogFollower(path, fd, after, options));
}

Result<std::unique_ptr<LogFollower>> LogFollower::open_at(const std::filesystem::path& path,
                                                          Seq after, std::uint64_t offset,
                                                          const ScanOptions& options) {
  AVA_TRY(auto follower, open(path, after, options));
  follower->consumed_ = offset;
  return follower;
}

Result<std::vector<Event>> LogFollower::poll(std::size_t max_bytes) {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) return base::fail_errno("stat " + path_.string(), errno);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size < consumed_) {
    return fail(ErrorCode::corrupt, fmt::format("{} shrank below its last complete frame (byte {})",
                                                path_.string(), consumed_));
  }
  // Everything after the last complete frame is read afresh each time: a frame
  // still being written is short, and a torn tail that recovery cut and
  // replaced must not be mixed with what replaced it.
  std::uint64_t budget = std::max<std::uint64_t>(max_bytes, 1);
  std::string pending;
  std::uint64_t position = consumed_;
  char buffer[1 << 16];
  auto read_up_to = [&](std::uint64_t end) -> Result<void> {
    while (position < end) {
      const auto want =
          static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buffer, end - position));
      const ssize_t got = ::pread(fd_, buffer, want, static_cast<off_t>(position));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return base::fail_errno("read " + path_.string(), errno);
      if (got == 0) break;
      pending.append(buffer, static_cast<std::size_t>(got));
      position += static_cast<std::uint64_t>(got);
    }
    return {};
  };
  auto budget_end = [&] { return budget >= size - consumed_ ? size : consumed_ + budget; };
  AVA_TRY_VOID(read_up_to(budget_end()));

  // No whole frame is longer than this (zstd adds a few bytes per block to
  // content that does not compress): a longer undecodable stretch is not a
  // frame cut short by the budget.
  const std::size_t max_frame_bytes = max_content_ + max_content_ / 64 + 1024;
  std::vector<Event> events;
  std::size_t used = 0;
  has_unread_ = false;
  while (used < pending.size()) {
    const std::string_view rest = std::string_view(pending).substr(used);
    auto frame = decoder_->decode(rest);
    if (!frame) {
      if (position < size && rest.size() <= max_frame_bytes) {
        // Cut by the budget, not by the writer: stop at the last whole
        // frame, or, when not even one fits, read further until it does.
        if (used > 0) {
          has_unread_ = true;
          break;
        }
        budget = budget > size ? size : budget * 2;
        AVA_TRY_VOID(read_up_to(budget_end()));
        continue;
      }
      // A frame being written, or a crashed writer's torn tail that recovery
      // will cut, ends the readable part; a bad frame with a valid one after
      // it (anywhere in the file) is corruption.
      AVA_TRY_VOID(read_up_to(size));
      if (!find_valid_frame_after(pending, used, max_content_)) break;
      return fail(ErrorCode::corrupt, fmt::format("{} at byte {}: {}", path_.string(),
                                                  consumed_ + used, frame.error().message));
    }
    std::vector<Event> decoded;
    if (auto ok = decode_frame_events(frame->content, max_record_, decoded); !ok) {
      return fail(ErrorCode::corrupt, fmt::format("{} at byte {}: {}", path_.string(),
                                                  consumed_ + used, ok.error().message));
    }
    used += frame->compressed_size;
    for (auto& event : decoded) {
      if (event.seq <= after_) continue;
      last_seq_ = event.seq;
      events.push_back(std::move(event));
    }
  }
  if (used == pending.size() && position < size) has_unread_ = true;
  consumed_ += used;
  return events;
}

asio::awaitable<Result<std::vector<Event>>> LogFollower::next() {
  if (inotify_fd_ < 0) {
    inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0) co_return base::fail_errno("inotify_init1", errno);
    if (::inotify_add_watch(inotify_fd_, path_.c_str(), IN_MODIFY | IN_CLOSE_WRITE) < 0) {
      co_return base::fail_errno("inotify_add_watch " + path_.string(), errno);
    }
  }
  // Asio must not close the inotify fd it borrows: release it on every exit.
  asio::posix::stream_descriptor watch(co_await asio::this_coro::executor, inotify_fd_);
  struct Release {
    asio::posix::stream_descriptor& d;
    ~Release() { (void)d.release(); }
  } release{watch};
  while (true) {
    // Poll after arming the watch, so a write between the two is not missed.
    auto events = poll();
    if (!events || !events->empty()) co_return events;
    auto [error] = co_await watch.async_wait(asio::posix::stream_descriptor::wait_read,
                                             asio::as_tuple(asio::use_awaitable));
    if (error == asio::error::operation_aborted) {
      co_return fail(ErrorCode::cancelled, "following " + path_.string() + " was cancelled");
    }
    if (error)
      co_return fail(ErrorCode::io, "waiting for " + path_.string() + ": " + error.message());
    char drain[4096];
    while (::read(inotify_fd_, drain, sizeof drain) > 0) {
    }
  }
}

}  // namespace ava::session
