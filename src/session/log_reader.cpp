#include "ava/session/log_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "ava/session/codec.hpp"
#include "session/codec_paths.hpp"
#include "session/frame.hpp"
#include "session/sys.hpp"

namespace ava::session {

namespace {

std::size_t max_content(const ScanOptions& options) {
  return std::max(options.max_frame_content, options.max_record + 1);
}

}  // namespace

namespace {

constexpr std::string_view kNoCompleteLine = "frame content does not end with a complete JSON line";

// One record (a line without its '\n') into `event`, a default-constructed
// Event: decode_line, decoding in place, the fast path first.
Result<void> decode_record(std::string_view line, std::size_t max_record, Event& event) {
  if (line.size() > max_record) {
    return fail(ErrorCode::corrupt,
                fmt::format("a {}-byte record exceeds the {}-byte limit", line.size(), max_record));
  }
  if (decode_line_fast(line, event)) return {};
  AVA_TRY(event, decode_line_dom(line));
  return {};
}

}  // namespace

Result<void> decode_frame_events(std::string_view content, std::size_t max_record,
                                 std::vector<Event>& out) {
  if (content.empty() || content.back() != '\n') {
    return fail(ErrorCode::corrupt, std::string(kNoCompleteLine));
  }
  while (!content.empty()) {
    const std::size_t end = content.find('\n');
    const std::string_view line = content.substr(0, end);
    content.remove_prefix(end + 1);
    if (auto decoded = decode_record(line, max_record, out.emplace_back()); !decoded) {
      out.pop_back();
      return decoded;
    }
  }
  return {};
}

Result<std::string> read_file_bytes(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::fail_errno("open " + path.string(), errno);
  auto bytes = read_fd(fd);
  ::close(fd);
  return bytes;
}

namespace {

struct FrameSpan {
  std::size_t offset = 0;
  std::size_t size = 0;
};

// Where the frames lie, from their headers alone (nothing is decompressed or
// checked yet). Stops where no complete frame starts: at the end, or at a torn
// tail or damage that decoding there will describe.
std::vector<FrameSpan> locate_frames(std::string_view bytes, std::size_t& stop) {
  std::vector<FrameSpan> frames;
  frames.reserve(bytes.size() / 128);
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const std::size_t size =
        ZSTD_findFrameCompressedSize(bytes.data() + offset, bytes.size() - offset);
    if (ZSTD_isError(size) != 0) break;
    frames.push_back({.offset = offset, .size = size});
    offset += size;
  }
  stop = offset;
  return frames;
}

// One thread's share of the frames, decoded in order until the first failure.
struct Share {
  std::size_t first = 0;  // frame indexes [first, last)
  std::size_t last = 0;
  // Where the events go: appended to `events`, or, decoding on several
  // threads, frame i into slots[i - first] (each frame must then hold exactly
  // one event, as Ava writes them).
  std::vector<Event>* events = nullptr;
  Event* slots = nullptr;
  std::vector<std::size_t> ends;      // how many events the scan holds after each decoded frame
  std::optional<std::size_t> failed;  // the frame that did not decode
  bool frame_failed = false;          // zstd refused it (else a record in it is bad)
  bool several = false;               // a frame held several events: no slot for them
  std::string reason;
  std::exception_ptr exception;
};

// Decodes one frame's events for `share`; false once it must stop.
bool decode_frame(FrameDecoder& decoder, std::string_view bytes, const FrameSpan& span,
                  std::size_t index, const ScanOptions& options, Share& share) {
  auto frame = decoder.decode(bytes.substr(span.offset));
  if (!frame) {
    share.failed = index;
    share.frame_failed = true;
    share.reason = std::move(frame).error().message;
    return false;
  }
  Result<void> decoded;
  if (share.slots == nullptr) {
    decoded = decode_frame_events(frame->content, options.max_record, *share.events);
    share.ends.push_back(share.events->size());
  } else {
    const std::string_view content = frame->content;
    if (content.empty() || content.back() != '\n') {
      decoded = fail(ErrorCode::corrupt, std::string(kNoCompleteLine));
    } else if (content.find('\n') + 1 != content.size()) {
      share.several = true;
      return false;
    } else {
      decoded = decode_record(content.substr(0, content.size() - 1), options.max_record,
                              share.slots[index - share.first]);
    }
    share.ends.push_back(index + 1);
  }
  if (!decoded) {
    share.ends.pop_back();
    share.failed = index;
    share.reason = std::move(decoded).error().message;
    return false;
  }
  return true;
}

void decode_share(std::string_view bytes, const std::vector<FrameSpan>& frames,
                  const ScanOptions& options, Share& share) {
  try {
    FrameDecoder decoder(max_content(options));
    share.ends.reserve(share.last - share.first);
    for (std::size_t i = share.first; i < share.last; ++i) {
      if (!decode_frame(decoder, bytes, frames[i], i, options, share)) return;
    }
  } catch (...) {
    share.exception = std::current_exception();
  }
}

// How many threads decode a log of this size: one unless it is big enough to
// repay starting threads.
std::size_t share_count(std::size_t bytes, std::size_t frames, const ScanOptions& options) {
  if (bytes < options.parallel_min_bytes || frames < 2) return 1;
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t limit =
      options.max_threads == 0 ? std::min<std::size_t>(cores, 8) : options.max_threads;
  return std::min(limit, frames);
}

// Contiguous shares of about equal byte size.
std::vector<Share> split(const std::vector<FrameSpan>& frames, std::size_t count,
                         std::size_t total_bytes) {
  std::vector<Share> shares(count);
  std::size_t next = 0;
  for (std::size_t k = 0; k < count; ++k) {
    shares[k].first = next;
    if (k + 1 == count) {
      next = frames.size();
    } else {
      const std::size_t boundary = total_bytes / count * (k + 1);
      while (next < frames.size() && frames[next].offset < boundary) ++next;
      next = std::min(std::max(next, shares[k].first + 1), frames.size());
    }
    shares[k].last = next;
  }
  return shares;
}

// Reserves room for `count` elements and maps its pages in at once rather
// than fault them in one by one while decoding.
template <class Vector>
void reserve_prefaulted(Vector& vector, std::size_t count) {
  vector.reserve(count);
  prefault(vector.data(), count * sizeof(typename Vector::value_type));
}

// Decodes the shares, all but the first on threads of their own.
void decode_shares(std::string_view bytes, const std::vector<FrameSpan>& frames,
                   const ScanOptions& options, std::vector<Share>& shares) {
  std::vector<std::jthread> threads;
  for (std::size_t k = 1; k < shares.size(); ++k) {
    try {
      threads.emplace_back([&, k] { decode_share(bytes, frames, options, shares[k]); });
    } catch (const std::system_error&) {
      decode_share(bytes, frames, options, shares[k]);  // no thread to be had: do it here
    }
  }
  decode_share(bytes, frames, options, shares[0]);
}

}  // namespace

Result<LogScan> scan_log(std::string_view bytes, const ScanOptions& options) {
  LogScan scan;
  scan.file_bytes = bytes.size();
  std::size_t stop = 0;
  const std::vector<FrameSpan> frames = locate_frames(bytes, stop);
  reserve_prefaulted(scan.frames, frames.size());

  // A big log is decoded in shares on several threads, each frame straight
  // into its event's place; a frame holding several events (written by
  // another tool) sends it back to one thread. Each share stops at its first
  // failure, and the results are then taken in file order, so what is
  // reported -- the first bad frame, record or sequence number -- is what
  // reading the frames one by one reports.
  std::vector<Share> shares = split(frames, share_count(stop, frames.size(), options), stop);
  if (shares.size() > 1) {
    reserve_prefaulted(scan.events, frames.size());
    scan.events.resize(frames.size());
    for (auto& share : shares) share.slots = scan.events.data() + share.first;
    decode_shares(bytes, frames, options, shares);
    if (std::ranges::any_of(shares, &Share::several)) {
      scan.events.clear();
      shares = split(frames, 1, stop);
    }
  }
  if (shares.size() == 1) {
    reserve_prefaulted(scan.events, frames.size());
    shares[0].events = &scan.events;
    decode_share(bytes, frames, options, shares[0]);
  }

  const auto frame_failure = [&](std::uint64_t offset, std::string reason) -> Result<LogScan> {
    if (auto later = find_valid_frame_after(bytes, offset, max_content(options))) {
      return fail(ErrorCode::corrupt,
                  fmt::format("corrupt frame at byte {}: {}; a valid frame follows at byte {}",
                              offset, reason, *later));
    }
    scan.torn_tail =
        TornTail{.offset = offset, .bytes = bytes.size() - offset, .reason = std::move(reason)};
    scan.events.resize(scan.frames.size());  // drops the slots of frames not decoded
    return std::move(scan);
  };

  for (auto& share : shares) {
    if (share.exception) std::rethrow_exception(share.exception);
    std::size_t event = share.slots == nullptr ? 0 : share.first;
    for (std::size_t j = 0; j < share.ends.size(); ++j) {
      const FrameSpan& frame = frames[share.first + j];
      for (; event < share.ends[j]; ++event) {
        const Seq expected = event == 0 ? 1 : scan.events[event - 1].seq + 1;
        if (scan.events[event].seq != expected) {
          return fail(ErrorCode::corrupt,
                      fmt::format("frame at byte {} has seq {}, expected {}", frame.offset,
                                  scan.events[event].seq, expected));
        }
        scan.frames.push_back({.offset = frame.offset, .size = frame.size});
      }
      scan.valid_bytes = frame.offset + frame.size;
    }
    if (share.failed) {
      const std::uint64_t offset = frames[*share.failed].offset;
      if (share.frame_failed) return frame_failure(offset, std::move(share.reason));
      return fail(ErrorCode::corrupt, fmt::format("frame at byte {}: {}", offset, share.reason));
    }
  }
  if (stop < bytes.size()) {
    // No frame could be found here; the decoder says why.
    FrameDecoder decoder(max_content(options));
    auto frame = decoder.decode(bytes.substr(stop));
    return frame_failure(stop, frame ? std::string("frame not found") : frame.error().message);
  }
  return scan;
}

Result<LogScan> read_log(const std::filesystem::path& path, const ScanOptions& options) {
  AVA_TRY(auto bytes, read_file_bytes(path));
  auto scan = scan_log(bytes, options);
  if (!scan) return std::unexpected(std::move(scan).error().with_context(path.string()));
  return scan;
}

}  // namespace ava::session
