#include <catch2/catch.hpp>

#include <string>

#include "ava/transport/sse.hpp"

using ava::transport::encode_sse;
using ava::transport::encode_sse_comment;
using ava::transport::parse_sse;
using ava::transport::SseFrame;

TEST_CASE("sse writer emits id, event and data lines then a blank line", "[sse]") {
  auto frame = encode_sse({.event = "delta", .data = "{\"x\":1}", .id = "9"});
  REQUIRE(frame.has_value());
  CHECK(*frame == "id: 9\nevent: delta\ndata: {\"x\":1}\n\n");
}

TEST_CASE("sse writer splits multi-line data on every kind of line break", "[sse]") {
  auto frame = encode_sse({.data = "a\nb\r\nc\rd"});
  REQUIRE(frame.has_value());
  CHECK(*frame == "data: a\ndata: b\ndata: c\ndata: d\n\n");
}

TEST_CASE("sse writer output parses back to the same event", "[sse]") {
  std::string data = "first\n\nthird line: with colon\n ";
  auto frame = encode_sse({.event = "msg", .data = data, .id = "abc", .retry_ms = 250});
  REQUIRE(frame.has_value());
  auto events = parse_sse(*frame);
  REQUIRE(events.has_value());
  REQUIRE(events->size() == 1);
  CHECK((*events)[0].event == "msg");
  CHECK((*events)[0].data == data);
  CHECK((*events)[0].id == "abc");
  CHECK((*events)[0].retry_ms == 250);
}

TEST_CASE("sse writer keeps an empty data as one data line", "[sse]") {
  auto frame = encode_sse({.event = "ping"});
  REQUIRE(frame.has_value());
  CHECK(*frame == "event: ping\ndata: \n\n");
}

TEST_CASE("sse writer refuses line breaks in event names and ids", "[sse]") {
  auto bad_event = encode_sse({.event = "a\ndata: forged", .data = "x"});
  REQUIRE_FALSE(bad_event.has_value());
  CHECK(bad_event.error().code == ava::ErrorCode::invalid_argument);
  CHECK_FALSE(encode_sse({.data = "x", .id = "1\r2"}).has_value());
}

TEST_CASE("sse writer refuses frames above the limit", "[sse]") {
  auto frame = encode_sse({.data = std::string(100, 'x')}, 64);
  REQUIRE_FALSE(frame.has_value());
  CHECK(frame.error().code == ava::ErrorCode::limit_exceeded);
}

TEST_CASE("sse comments and keep-alives are ignored by the parser", "[sse]") {
  CHECK(encode_sse_comment() == ":\n\n");
  CHECK(encode_sse_comment("hello\nworld") == ": hello\n: world\n\n");
  auto events = parse_sse(encode_sse_comment("keep-alive") + *encode_sse({.data = "x"}));
  REQUIRE(events.has_value());
  REQUIRE(events->size() == 1);
  CHECK((*events)[0].data == "x");
}
