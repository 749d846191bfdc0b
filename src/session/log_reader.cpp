#include "ava/session/log_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "ava/session/codec.hpp"
#include "session/frame.hpp"
#include "session/sys.hpp"

namespace ava::session {

namespace {

std::size_t max_content(const ScanOptions& options) {
  return std::max(options.max_frame_content, options.max_record + 1);
}

}  // namespace

Result<void> decode_frame_events(std::string_view content, std::size_t max_record,
                                 std::vector<Event>& out) {
  if (content.empty() || content.back() != '\n') {
    return fail(ErrorCode::corrupt, "frame content does not end with a complete JSON line");
  }
  while (!content.empty()) {
    const std::size_t end = content.find('\n');
    const std::string_view line = content.substr(0, end);
    content.remove_prefix(end + 1);
    if (line.size() > max_record) {
      return fail(ErrorCode::corrupt, fmt::format("a {}-byte record exceeds the {}-byte limit",
                                                  line.size(), max_record));
    }
    AVA_TRY(auto event, decode_line(line));
    out.push_back(std::move(event));
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

Result<LogScan> scan_log(std::string_view bytes, const ScanOptions& options) {
  LogScan scan;
  scan.file_bytes = bytes.size();
  // Records average well over 128 compressed bytes; one reservation avoids
  // re-allocating (and page-faulting) the event vector while it grows.
  scan.events.reserve(bytes.size() / 128);
  scan.frames.reserve(bytes.size() / 128);
  FrameDecoder decoder(max_content(options));
  std::uint64_t offset = 0;
  while (offset < bytes.size()) {
    auto frame = decoder.decode(bytes.substr(offset));
    if (!frame) {
      if (auto later = find_valid_frame_after(bytes, offset, max_content(options))) {
        return fail(ErrorCode::corrupt,
                    fmt::format("corrupt frame at byte {}: {}; a valid frame follows at byte {}",
                                offset, frame.error().message, *later));
      }
      scan.torn_tail = TornTail{
          .offset = offset, .bytes = bytes.size() - offset, .reason = frame.error().message};
      break;
    }
    const std::size_t first = scan.events.size();
    if (auto decoded = decode_frame_events(frame->content, options.max_record, scan.events);
        !decoded) {
      return fail(ErrorCode::corrupt,
                  fmt::format("frame at byte {}: {}", offset, decoded.error().message));
    }
    for (std::size_t i = first; i < scan.events.size(); ++i) {
      const Seq expected = i == 0 ? 1 : scan.events[i - 1].seq + 1;
      if (scan.events[i].seq != expected) {
        return fail(ErrorCode::corrupt, fmt::format("frame at byte {} has seq {}, expected {}",
                                                    offset, scan.events[i].seq, expected));
      }
      scan.frames.push_back({.offset = offset, .size = frame->compressed_size});
    }
    offset += frame->compressed_size;
    scan.valid_bytes = offset;
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
