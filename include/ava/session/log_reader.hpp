#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/session/event.hpp"

namespace ava::session {

// Where each event's frame lies in the file (Ava writes one event per frame;
// frames made by other tools, e.g. `zstd` itself, may hold several).
struct FrameLocation {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

// Bytes after the last complete frame that do not form one: what a crash in
// the middle of a write leaves behind.
struct TornTail {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::string reason;
};

struct LogScan {
  std::vector<Event> events;
  std::vector<FrameLocation> frames;  // frames[i] holds events[i]
  std::uint64_t valid_bytes = 0;      // end of the last complete frame
  std::uint64_t file_bytes = 0;
  std::optional<TornTail> torn_tail;
};

struct ScanOptions {
  std::size_t max_record = base::Limits::defaults().session_record;
  std::size_t max_frame_content = 64 * base::MiB;
  // A log at least this big is decoded on several threads (the result is the
  // same as decoding it on one).
  std::size_t parallel_min_bytes = 4 * base::MiB;
  std::size_t max_threads = 0;  // 0: one per core
};

// Reads every frame, verifying zstd checksums, JSON and sequence continuity.
// A big log is decoded by several threads (see ScanOptions).
// An undecodable final stretch is reported as a torn tail; an undecodable
// frame with a complete frame after it is corruption in the middle and an
// error naming its byte offset. Never modifies anything.
Result<LogScan> scan_log(std::string_view bytes, const ScanOptions& options = {});
Result<LogScan> read_log(const std::filesystem::path& path, const ScanOptions& options = {});

// Decodes the JSON lines of one frame's content, appending to `out`.
Result<void> decode_frame_events(std::string_view content, std::size_t max_record,
                                 std::vector<Event>& out);

// Reads a whole file; shared by the reader, recovery and tests.
Result<std::string> read_file_bytes(const std::filesystem::path& path);

}  // namespace ava::session
