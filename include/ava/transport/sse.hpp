#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"

namespace ava::transport {

// One dispatched Server-Sent Event (WHATWG HTML, "Interpreting an event
// stream"). `event` is empty when the stream sent no `event:` field.
struct SseEvent {
  std::string event;
  std::string data;  // several data: lines joined with '\n'
  std::string id;    // the last event id in effect when this event was dispatched
  std::optional<std::int64_t> retry_ms;
  bool operator==(const SseEvent&) const = default;
};

// Incremental parser: feed the body in chunks of any size (a CR at the end
// of one chunk and the LF at the start of the next are one line break).
//
// Dispatch policy, made explicit because providers disagree:
// - an event is dispatched on a blank line when it has data or an event name
//   (WHATWG drops name-only events; openai-python and codex's mock servers do
//   not, and a name-only event is harmless to a consumer that ignores it);
// - finish() treats end of input as the end of the last line and of the last
//   event, so a final event without its blank line is still seen (several
//   captured provider bodies end that way). A stream cut mid-event therefore
//   surfaces its partial data, and it is the consumer's JSON parse that
//   refuses it.
class SseParser {
 public:
  explicit SseParser(std::size_t max_frame_bytes = base::Limits::defaults().sse_frame)
      : max_frame_bytes_(max_frame_bytes) {}

  // Appends the events completed by `chunk` to `out`. After an error the
  // parser stays failed.
  Result<void> feed(std::string_view chunk, std::vector<SseEvent>& out);
  // End of input: flushes a pending line and event.
  Result<void> finish(std::vector<SseEvent>& out);

  // The last `id:` seen, for a reconnect's Last-Event-ID.
  const std::string& last_event_id() const { return last_event_id_; }
  std::optional<std::int64_t> retry_ms() const { return retry_ms_; }

 private:
  Result<void> process_line(std::string_view line, std::vector<SseEvent>& out);
  void dispatch(std::vector<SseEvent>& out);
  Result<void> check_frame_size(std::size_t extra) const;

  std::size_t max_frame_bytes_;
  std::string line_;  // the unterminated line carried over between chunks
  std::string event_name_;
  std::string data_;
  bool has_data_ = false;
  std::string last_event_id_;
  std::optional<std::int64_t> retry_ms_;
  std::optional<std::int64_t> event_retry_ms_;
  std::size_t bom_bytes_checked_ = 0;  // of the 3-byte UTF-8 BOM at stream start
  bool skip_leading_lf_ = false;       // previous chunk ended in CR
  bool failed_ = false;
};

// Parses a whole body at once (tests, `ava debug stream`).
Result<std::vector<SseEvent>> parse_sse(
    std::string_view body, std::size_t max_frame_bytes = base::Limits::defaults().sse_frame);

// Writer side of the same format, for the API server and the fake provider.
// Every function returns one complete frame, ready to write.
struct SseFrame {
  std::string_view event;  // omitted when empty
  std::string_view data;   // split on CR, LF and CRLF into data: lines
  std::string_view id;     // omitted when empty
  std::optional<std::int64_t> retry_ms;
};

// Fails when event or id contain a line break (they would forge fields) or
// the frame would exceed max_frame_bytes.
Result<std::string> encode_sse(const SseFrame& frame,
                               std::size_t max_frame_bytes = base::Limits::defaults().sse_frame);
// ": text\n\n"; line breaks in text start further comment lines. An empty
// text gives ":\n\n", the usual keep-alive.
std::string encode_sse_comment(std::string_view text = {});

}  // namespace ava::transport
