#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ava/transport/sse.hpp"

using ava::transport::parse_sse;
using ava::transport::SseEvent;
using ava::transport::SseParser;

namespace {

std::vector<SseEvent> parse_whole(std::string_view body) {
  auto events = parse_sse(body);
  REQUIRE(events.has_value());
  return *events;
}

// Feeds the body in pieces of `size` bytes and returns what came out.
std::vector<SseEvent> parse_in_chunks(std::string_view body, std::size_t size) {
  SseParser parser;
  std::vector<SseEvent> events;
  for (std::size_t at = 0; at < body.size(); at += size) {
    REQUIRE(parser.feed(body.substr(at, size), events).has_value());
  }
  REQUIRE(parser.finish(events).has_value());
  return events;
}

}  // namespace

TEST_CASE("sse event name and data are dispatched on a blank line", "[sse]") {
  auto events = parse_whole("event: ping\ndata: {\"a\":1}\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == "ping");
  CHECK(events[0].data == "{\"a\":1}");
}

TEST_CASE("sse several data lines are joined with newlines", "[sse]") {
  auto events = parse_whole("data: one\ndata:two\ndata:  three\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "one\ntwo\n three");  // exactly one leading space is stripped
}

TEST_CASE("sse comments are ignored and keep-alives produce no event", "[sse]") {
  auto events = parse_whole(": OPENROUTER PROCESSING\n\n:\n\ndata: x\n: in the middle\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "x");
}

TEST_CASE("sse accepts LF, CRLF and CR line endings alike", "[sse]") {
  std::vector<SseEvent> expected = {SseEvent{.event = "e", .data = "a\nb"}, SseEvent{.data = "c"}};
  CHECK(parse_whole("event: e\ndata: a\ndata: b\n\ndata: c\n\n") == expected);
  CHECK(parse_whole("event: e\r\ndata: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n") == expected);
  CHECK(parse_whole("event: e\rdata: a\rdata: b\r\rdata: c\r\r") == expected);
}

TEST_CASE("sse CRLF split across chunks is one line break", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  REQUIRE(parser.feed("data: a\r", events));
  REQUIRE(parser.feed("\ndata: b\r", events));
  REQUIRE(parser.feed("\n\r", events));
  REQUIRE(parser.feed("\n", events));
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "a\nb");
}

TEST_CASE("sse lone CR at a chunk end followed by a CR is a blank line", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  REQUIRE(parser.feed("data: a\r", events));
  REQUIRE(parser.feed("\r", events));
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "a");
}

TEST_CASE("sse every chunk size gives the same events", "[sse]") {
  std::string body =
      "\xEF\xBB\xBF"
      "event: message_start\r\ndata: {\"t\":\"caf\xC3\xA9\"}\r\n\r\n"
      ": comment\n"
      "id: 7\nretry: 1500\ndata: line1\rdata: line2\r\r"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto whole = parse_whole(body);
  REQUIRE(whole.size() == 3);
  CHECK(whole[0].event == "message_start");
  CHECK(whole[1].id == "7");
  CHECK(whole[1].retry_ms == 1500);
  CHECK(whole[1].data == "line1\nline2");
  for (std::size_t size = 1; size <= body.size(); ++size) {
    INFO("chunk size " << size);
    CHECK(parse_in_chunks(body, size) == whole);
  }
}

TEST_CASE("sse a byte order mark is dropped only at the stream start", "[sse]") {
  auto events = parse_whole(
      "\xEF\xBB\xBF"
      "data: x\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "x");

  auto split = parse_in_chunks(
      "\xEF\xBB\xBF"
      "data: y\n\n",
      1);
  REQUIRE(split.size() == 1);
  CHECK(split[0].data == "y");

  // A partial BOM is not a BOM: the bytes belong to the first line.
  auto partial = parse_whole(
      "\xEF\xBB"
      "data: z\n\n");
  CHECK(partial.empty());  // the field name is no longer "data"
}

TEST_CASE("sse the last event without a blank line is flushed at end of input", "[sse]") {
  auto events = parse_whole("data: first\n\nevent: message_stop\ndata: {}");
  REQUIRE(events.size() == 2);
  CHECK(events[1].event == "message_stop");
  CHECK(events[1].data == "{}");
}

TEST_CASE("sse id persists and retry applies only to its event", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  REQUIRE(parser.feed("id: 42\nretry: 3000\ndata: a\n\ndata: b\n\nid\ndata: c\n\n", events));
  REQUIRE(events.size() == 3);
  CHECK(events[0].id == "42");
  CHECK(events[0].retry_ms == 3000);
  CHECK(events[1].id == "42");
  CHECK_FALSE(events[1].retry_ms.has_value());
  CHECK(events[2].id.empty());  // "id" with no value resets it
  CHECK(parser.retry_ms() == 3000);
}

TEST_CASE("sse invalid retry values are ignored", "[sse]") {
  auto events = parse_whole("retry: 12a\nretry: -5\ndata: a\n\n");
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].retry_ms.has_value());
}

TEST_CASE("sse unknown fields are ignored and a field without colon has empty value", "[sse]") {
  auto events = parse_whole("foo: bar\ndata\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].data.empty());
}

TEST_CASE("sse an event name without data is still dispatched", "[sse]") {
  auto events = parse_whole("event: response.output_item.done\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == "response.output_item.done");
  CHECK(events[0].data.empty());
}

TEST_CASE("sse blank lines with no fields dispatch nothing", "[sse]") {
  CHECK(parse_whole("\n\n\r\n\r\r").empty());
}

TEST_CASE("sse an oversized event fails with limit_exceeded and the parser stays failed", "[sse]") {
  SseParser parser(64);
  std::vector<SseEvent> events;
  REQUIRE(parser.feed("data: small\n\n", events));
  std::string big = "data: " + std::string(100, 'x');
  auto fed = parser.feed(big, events);
  REQUIRE_FALSE(fed.has_value());
  CHECK(fed.error().code == ava::ErrorCode::limit_exceeded);
  CHECK_FALSE(parser.feed("data: a\n\n", events).has_value());
  CHECK(events.size() == 1);
}

TEST_CASE("sse many short data lines also count against the frame limit", "[sse]") {
  SseParser parser(64);
  std::vector<SseEvent> events;
  std::string body;
  for (int i = 0; i < 20; ++i) body += "data: 12345\n";
  auto fed = parser.feed(body, events);
  REQUIRE_FALSE(fed.has_value());
  CHECK(fed.error().code == ava::ErrorCode::limit_exceeded);
}

TEST_CASE("sse field lines of any kind are bounded, not only data", "[sse][security]") {
  // Whole in one chunk: the line was never counted on its way in.
  for (const std::string field : {"event: ", "id: ", "x-unknown: ", ": "}) {
    INFO(field);
    const std::string body = field + std::string(200, 'a') + "\ndata: x\n\n";
    auto refused = parse_sse(body, 64);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == ava::ErrorCode::limit_exceeded);
  }
  CHECK(parse_sse("event: " + std::string(40, 'a') + "\ndata: x\n\n", 64).has_value());
}
