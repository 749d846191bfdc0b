#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/session/event.hpp"
#include "ava/session/log_reader.hpp"

namespace ava::session {

class FrameDecoder;

// Replays a log from a sequence number, then tails it as it grows, from the
// file alone (another process may be the writer). A frame still being written
// is left for the next poll; a torn tail later cut by recovery is dropped and
// reading resumes where recovery appended.
class LogFollower {
 public:
  static Result<std::unique_ptr<LogFollower>> open(const std::filesystem::path& path, Seq after,
                                                   const ScanOptions& options = {});
  // Starts reading at `offset`, the end of a complete frame an earlier
  // follower consumed (consumed_bytes()): complete frames are never rewritten,
  // so a reader that keeps its place skips decoding the history again.
  static Result<std::unique_ptr<LogFollower>> open_at(const std::filesystem::path& path, Seq after,
                                                      std::uint64_t offset,
                                                      const ScanOptions& options = {});
  ~LogFollower();
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;

  // Complete events with seq > `after` that appeared since the last call.
  // `max_bytes` bounds how much of the file one call reads (at least one
  // whole frame is read, however large): a replay of a long history then
  // takes a bounded amount of memory per call, and has_unread() says
  // whether another call would read more.
  Result<std::vector<Event>> poll(std::size_t max_bytes = SIZE_MAX);
  bool has_unread() const { return has_unread_; }
  // Like poll(), but waits (inotify, no polling loop) until at least one
  // event is available. Cancel it through the coroutine's cancellation slot.
  boost::asio::awaitable<Result<std::vector<Event>>> next();

  Seq last_seq() const { return last_seq_; }
  // The file offset just past the last complete frame read.
  std::uint64_t consumed_bytes() const { return consumed_; }

 private:
  LogFollower(std::filesystem::path path, int fd, Seq after, const ScanOptions& options);

  std::filesystem::path path_;
  int fd_;
  int inotify_fd_ = -1;
  Seq after_;
  Seq last_seq_ = 0;
  std::uint64_t consumed_ = 0;  // file offset just past the last complete frame
  bool has_unread_ = false;     // the last poll stopped at max_bytes, before the end
  std::size_t max_record_;
  std::size_t max_content_;
  std::unique_ptr<FrameDecoder> decoder_;
};

}  // namespace ava::session
