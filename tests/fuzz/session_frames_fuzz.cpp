// The session log reader and the JSONL event codec: a log file is read back
// by `ava session inspect`, on resume and by the server, whoever wrote it.
//
// The input is used three ways:
// - as a log file's bytes (scan_log, on one thread and on two): a success
//   is self-consistent (frames inside the valid bytes, seqs 1..n, a torn
//   tail exactly past them) and both scans describe the same result;
// - as one frame's content (decode_frame_events) and line by line: the
//   typed fast decoder agrees with the nlohmann DOM decoder or declines, and
//   a decoded event encodes (typed writer = DOM writer) to a line that
//   decodes to the same event;
// - each line wrapped in a frame of its own, as Ava writes them: the scan
//   succeeds exactly when every line decodes with seqs 1..n and gives those
//   events, and a log cut inside its last frame has that frame as a torn tail.
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "ava/session/codec.hpp"
#include "ava/session/log_reader.hpp"
#include "fuzz/fuzz_check.hpp"
#include "session/codec_paths.hpp"
#include "session/frame.hpp"

namespace {

using namespace ava::session;

// Small bounds: the same code, and a 64 MiB frame header costs no time.
constexpr ScanOptions kOptions{.max_record = 64 * 1024, .max_frame_content = 256 * 1024};

std::string dom_line(const Event& event) {
  std::string line;
  write_event_line_dom(event, line);
  return line;
}

// Everything a scan says, as text to compare.
std::string describe(const ava::Result<LogScan>& scan) {
  if (!scan) return fmt::format("error {}", scan.error().message);
  std::string out = fmt::format("file {} valid {}", scan->file_bytes, scan->valid_bytes);
  if (scan->torn_tail) {
    out += fmt::format(" torn {}+{} ({})", scan->torn_tail->offset, scan->torn_tail->bytes,
                       scan->torn_tail->reason);
  }
  for (std::size_t i = 0; i < scan->events.size(); ++i) {
    out += fmt::format("\n{}+{} {}", scan->frames[i].offset, scan->frames[i].size,
                       dom_line(scan->events[i]));
  }
  return out;
}

void check_scan(std::string_view bytes, const ava::Result<LogScan>& scan) {
  if (!scan) {
    FUZZ_CHECK(scan.error().code == ava::ErrorCode::corrupt);
    return;
  }
  FUZZ_CHECK(scan->file_bytes == bytes.size());
  FUZZ_CHECK(scan->valid_bytes <= scan->file_bytes);
  FUZZ_CHECK(scan->events.size() == scan->frames.size());
  std::uint64_t previous_end = 0;
  for (std::size_t i = 0; i < scan->events.size(); ++i) {
    FUZZ_CHECK(scan->events[i].seq == i + 1);
    const auto& frame = scan->frames[i];
    FUZZ_CHECK(frame.size > 0);
    FUZZ_CHECK(frame.offset + frame.size <= scan->valid_bytes);
    // Frames follow each other; a frame holding several events repeats.
    FUZZ_CHECK(frame.offset == previous_end ||
               (i > 0 && frame.offset == scan->frames[i - 1].offset));
    previous_end = frame.offset + frame.size;
  }
  FUZZ_CHECK(previous_end == scan->valid_bytes);
  if (scan->torn_tail) {
    FUZZ_CHECK(scan->torn_tail->offset == scan->valid_bytes);
    FUZZ_CHECK(scan->torn_tail->bytes == bytes.size() - scan->valid_bytes);
    FUZZ_CHECK(scan->torn_tail->bytes > 0);
  } else {
    FUZZ_CHECK(scan->valid_bytes == bytes.size());
  }
}

// The fast decoder declines or decodes what the DOM decodes; a decoded event
// survives encode then decode. Returns the DOM result.
ava::Result<Event> check_line(std::string_view line) {
  auto dom = decode_line_dom(line);
  const auto fast = decode_line_fast(line);
  const auto chosen = decode_line(line);
  if (!dom) {
    FUZZ_CHECK(!fast);
    FUZZ_CHECK(!chosen && chosen.error().message == dom.error().message);
    return dom;
  }
  FUZZ_CHECK(chosen.has_value());
  const std::string canonical = dom_line(*dom);
  FUZZ_CHECK(dom_line(*chosen) == canonical);
  if (fast) {
    FUZZ_CHECK(fast->seq == dom->seq && fast->ts_ms == dom->ts_ms);
    FUZZ_CHECK(fast->body.index() == dom->body.index());
    FUZZ_CHECK(fast->extra == dom->extra);
    FUZZ_CHECK(dom_line(*fast) == canonical);
  }
  std::string typed;
  if (write_event_line(*dom, typed)) FUZZ_CHECK(typed == canonical);
  FUZZ_CHECK(encode_line(*dom) == canonical);
  FUZZ_CHECK(!canonical.empty() && canonical.back() == '\n');
  const auto again = decode_line(std::string_view(canonical).substr(0, canonical.size() - 1));
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(dom_line(*again) == canonical);
  return dom;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = ava::fuzz::as_text(data, size);

  // The bytes as a log file, on one thread and on two.
  const auto scan = scan_log(bytes, kOptions);
  check_scan(bytes, scan);
  ScanOptions threaded = kOptions;
  threaded.parallel_min_bytes = 0;
  threaded.max_threads = 2;
  FUZZ_CHECK(describe(scan_log(bytes, threaded)) == describe(scan));

  // The bytes as one frame's content, and line by line.
  std::vector<Event> events;
  const auto content = decode_frame_events(bytes, kOptions.max_record, events);
  const auto lines = lines_of(bytes);
  bool all_decode = !lines.empty();
  std::vector<std::string> decoded;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto event = check_line(lines[i]);
    if (lines[i].size() > kOptions.max_record || (event && event->seq != i + 1)) {
      all_decode = false;
    }
    if (!event) {
      all_decode = false;
      continue;
    }
    decoded.push_back(dom_line(*event));
  }
  if (content) {
    FUZZ_CHECK(events.size() == lines.size() && decoded.size() == lines.size());
    for (std::size_t i = 0; i < events.size(); ++i) FUZZ_CHECK(dom_line(events[i]) == decoded[i]);
  }

  // Each line in a frame of its own, as the writer makes them.
  FrameEncoder encoder;
  std::string log;
  std::size_t last_frame = 0;
  for (const auto line : lines) {
    last_frame = log.size();
    FUZZ_CHECK(encoder.encode(std::string(line) + "\n", log));
  }
  const auto framed = scan_log(log, kOptions);
  check_scan(log, framed);
  FUZZ_CHECK(framed.has_value() == (all_decode || lines.empty()));
  if (!framed || lines.empty()) return 0;
  FUZZ_CHECK(!framed->torn_tail && framed->events.size() == lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    FUZZ_CHECK(dom_line(framed->events[i]) == decoded[i]);
  }
  const std::string_view cut =
      std::string_view(log).substr(0, last_frame + (log.size() - last_frame) / 2);
  const auto torn = scan_log(cut, kOptions);
  check_scan(cut, torn);
  FUZZ_CHECK(torn && torn->torn_tail && torn->torn_tail->offset == last_frame);
  FUZZ_CHECK(torn->events.size() == lines.size() - 1);
  return 0;
}
