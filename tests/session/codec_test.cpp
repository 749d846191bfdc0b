#include <catch2/catch.hpp>

#include "ava/session/codec.hpp"
#include "session/samples.hpp"

using namespace ava::session;

TEST_CASE("every event kind survives a round trip", "[codec]") {
  Seq seq = 1;
  for (const auto& body : ava::test::every_kind()) {
    Event event{.seq = seq++, .ts_ms = 1'796'210'516'123, .body = body};
    const std::string line = encode_line(event);
    INFO(line);
    REQUIRE(line.back() == '\n');
    REQUIRE(line.find('\n') == line.size() - 1);
    auto decoded = decode_line(std::string_view(line).substr(0, line.size() - 1));
    REQUIRE(decoded);
    CHECK(decoded->seq == event.seq);
    CHECK(decoded->ts_ms == event.ts_ms);
    CHECK(decoded->body.index() == event.body.index());
    CHECK(type_name(decoded->body) == type_name(event.body));
    CHECK(encode_line(*decoded) == line);
    CHECK(decoded->extra.empty());
  }
}

TEST_CASE("decoded fields equal the originals", "[codec]") {
  const auto bodies = ava::test::every_kind();
  Event event{.seq = 3, .ts_ms = 5, .body = bodies[8]};  // the tool result
  auto decoded = decode(encode(event));
  REQUIRE(decoded);
  const auto& original = std::get<ToolResult>(event.body);
  const auto& copy = std::get<ToolResult>(decoded->body);
  CHECK(copy.call_id == original.call_id);
  CHECK(copy.status == ToolStatus::error);
  CHECK(copy.content == original.content);
  CHECK(copy.details == original.details);

  Event assistant{.seq = 4, .ts_ms = 5, .body = bodies[7]};
  auto message = decode(encode(assistant));
  REQUIRE(message);
  CHECK(std::get<AssistantMessage>(message->body).content ==
        std::get<AssistantMessage>(assistant.body).content);
}

TEST_CASE("an unknown event kind is kept as it was", "[codec]") {
  const std::string line =
      R"({"seq":9,"ts":42,"type":"future_thing","nested":{"a":[1,2,{"b":null}],"c":"ü"},"n":1.5})";
  auto decoded = decode_line(line);
  REQUIRE(decoded);
  REQUIRE(std::holds_alternative<UnknownEvent>(decoded->body));
  CHECK(type_name(decoded->body) == "future_thing");
  CHECK(decoded->seq == 9);
  CHECK(encode(*decoded) == nlohmann::json::parse(line));
}

TEST_CASE("unknown fields of a known kind are written back", "[codec]") {
  const std::string line =
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"t","added_later":{"x":1}})";
  auto decoded = decode_line(line);
  REQUIRE(decoded);
  CHECK(std::get<TurnStarted>(decoded->body).turn_id == "t");
  CHECK(decoded->extra == nlohmann::json{{"added_later", {{"x", 1}}}});
  CHECK(encode(*decoded) == nlohmann::json::parse(line));
}

TEST_CASE("missing or mistyped required fields are rejected with their name", "[codec]") {
  auto missing = decode_line(R"({"seq":1,"ts":2,"type":"tool_result","turn_id":"t","step":1})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ava::ErrorCode::parse);
  CHECK(missing.error().message.find("'call_id'") != std::string::npos);

  auto mistyped = decode_line(R"({"seq":1,"ts":2,"type":"turn_start","turn_id":7})");
  REQUIRE_FALSE(mistyped);
  CHECK(mistyped.error().message.find("'turn_id' must be a string") != std::string::npos);

  auto bad_enum =
      decode_line(R"({"seq":1,"ts":2,"type":"turn_end","turn_id":"t","reason":"exploded"})");
  REQUIRE_FALSE(bad_enum);
  CHECK(bad_enum.error().message.find("exploded") != std::string::npos);

  CHECK_FALSE(decode_line(R"({"ts":2,"type":"paused"})"));
  CHECK_FALSE(decode_line("[1,2]"));
  CHECK_FALSE(decode_line("{not json"));
}

TEST_CASE("invalid UTF-8 in text is replaced, not fatal", "[codec]") {
  Event event{.seq = 1, .ts_ms = 1, .body = TurnEnded{.turn_id = "t", .message = "bad \xff byte"}};
  const std::string line = encode_line(event);
  auto decoded = decode_line(line);
  REQUIRE(decoded);
  CHECK(std::get<TurnEnded>(decoded->body).message.find("bad ") == 0);
}

TEST_CASE("the fast JSON writer matches nlohmann's output", "[codec]") {
  const std::vector<std::string> samples = {"plain",
                                            "",
                                            "quote \" backslash \\ slash /",
                                            "\b\f\n\r\t\x01\x1f",
                                            "ünïcödé ✓ 𝄞 emoji 😀",
                                            "bad \xff byte",
                                            "truncated \xe2\x82",
                                            "overlong \xc0\xaf",
                                            "surrogate \xed\xa0\x80",
                                            "\x7f del"};
  for (const auto& text : samples) {
    INFO(text);
    const nlohmann::json object = {{"k", text}, {"list", {1, 2.5, true, nullptr, text}}};
    Event event{.seq = 1, .ts_ms = 2, .body = UnknownEvent{.type = "x", .raw = object}};
    std::string expected =
        encode(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    CHECK(encode_line(event) == expected + "\n");
  }
}

TEST_CASE("a record nested far deeper than any event is a parse error, not a stack overflow",
          "[codec][security]") {
  // Decoding copies unknown fields recursively; a log read after a crash may
  // hold anything, so the depth is bounded before any value is built.
  const std::string deep = R"({"seq":1,"ts":0,"type":"turn_start","turn_id":"t","x":)" +
                           std::string(300000, '[') + std::string(300000, ']') + "}";
  auto refused = ava::session::decode_line(deep);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ava::ErrorCode::parse);
  const std::string unknown =
      R"({"seq":1,"ts":0,"type":"from_the_future","x":)" + std::string(300000, '{') + "}";
  CHECK_FALSE(ava::session::decode_line(unknown).has_value());
  // Moderately nested extra fields still round-trip.
  const std::string nested = R"({"seq":1,"ts":0,"type":"turn_start","turn_id":"t","x":)" +
                             std::string(100, '[') + std::string(100, ']') + "}";
  CHECK(ava::session::decode_line(nested).has_value());
}
