#include "ava/session/log_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "ava/session/codec.hpp"
#include "session/frame.hpp"
#include "session/sys.hpp"

namespace ava::session {

namespace {

// Frame content is one JSON line; the limit leaves room for the newline.
std::size_t max_content(const ScanOptions& options) { return options.max_record + 1; }

}  // namespace

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
    std::string_view line = frame->content;
    if (line.empty() || line.back() != '\n') {
      return fail(ErrorCode::corrupt,
                  fmt::format("frame at byte {} does not hold one JSON line", offset));
    }
    line.remove_suffix(1);
    auto event = decode_line(line);
    if (!event) {
      return fail(ErrorCode::corrupt,
                  fmt::format("event in frame at byte {}: {}", offset, event.error().message));
    }
    const Seq expected = scan.events.empty() ? 1 : scan.events.back().seq + 1;
    if (event->seq != expected) {
      return fail(ErrorCode::corrupt, fmt::format("frame at byte {} has seq {}, expected {}",
                                                  offset, event->seq, expected));
    }
    scan.events.push_back(std::move(*event));
    scan.frames.push_back({.offset = offset, .size = frame->compressed_size});
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
