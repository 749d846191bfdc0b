// The incremental SSE parser (ava::transport::SseParser), as provider and
// MCP streams and the desktop client feed it: in chunks of any size.
//
// Input: one byte choosing the frame limit, one seeding the chunk sizes,
// then the body. Checks: chunked parsing that succeeds gives the events,
// last id and retry of a whole-body parse; an event never exceeds the frame
// limit (its data); the parser stays failed after an error; and every event encodes
// (encode_sse) to a frame that parses back to the same event.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ava/transport/sse.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using ava::transport::SseEvent;
using ava::transport::SseParser;

void check_round_trip(const SseEvent& event) {
  constexpr auto unlimited = std::numeric_limits<std::size_t>::max();
  const auto frame = ava::transport::encode_sse(
      {.event = event.event, .data = event.data, .id = event.id, .retry_ms = event.retry_ms},
      unlimited);
  FUZZ_CHECK(frame.has_value());  // parsed names and ids hold no line break
  const auto back = ava::transport::parse_sse(*frame, unlimited);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(back->size() == 1);
  FUZZ_CHECK(back->front() == event);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ava::fuzz::Bytes input(data, size);
  // Small limits reach the limit paths; 0 stands for the default.
  const std::uint8_t limit_byte = input.byte();
  const std::size_t limit =
      limit_byte == 0 ? ava::base::Limits::defaults().sse_frame : std::size_t{limit_byte} * 16;
  std::uint32_t seed = input.byte(7);
  const std::string_view body = input.rest();

  SseParser parser(limit);
  std::vector<SseEvent> chunked;
  bool ok = true;
  std::size_t at = 0;
  while (ok && at < body.size()) {
    seed = seed * 1103515245U + 12345U;
    const std::size_t length = std::min<std::size_t>(body.size() - at, (seed >> 16U) % 64);
    ok = parser.feed(body.substr(at, length), chunked).has_value();
    at += length;
  }
  if (ok) ok = parser.finish(chunked).has_value();
  if (!ok) {
    std::vector<SseEvent> after;
    FUZZ_CHECK(!parser.feed("data: x\n\n", after));
    FUZZ_CHECK(!parser.finish(after));
    FUZZ_CHECK(after.empty());
  }

  const auto whole = ava::transport::parse_sse(body, limit);
  if (ok) {
    // A chunk boundary may only add to the bytes held at once, never
    // remove: what parses in chunks parses whole, to the same events.
    FUZZ_CHECK(whole.has_value());
    FUZZ_CHECK(*whole == chunked);
    SseParser again(limit);
    std::vector<SseEvent> events;
    FUZZ_CHECK(again.feed(body, events) && again.finish(events));
    FUZZ_CHECK(again.last_event_id() == parser.last_event_id());
    FUZZ_CHECK(again.retry_ms() == parser.retry_ms());
  }
  if (!whole) return 0;
  for (const auto& event : *whole) {
    // Only data is bounded line by line; an event name is bounded by the
    // size of the chunk it came in.
    FUZZ_CHECK(event.data.size() <= limit);
    FUZZ_CHECK(event.data.find('\r') == std::string::npos);
    FUZZ_CHECK(event.id.find('\0') == std::string::npos);
    if (event.retry_ms) FUZZ_CHECK(*event.retry_ms >= 0);
    check_round_trip(event);
  }
  return 0;
}
