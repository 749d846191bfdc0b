#include <catch2/catch.hpp>

#include <string>

#include "ava/base/json.hpp"

using ava::base::json_field;
using ava::base::json_value;
using ava::base::parse_json;
using nlohmann::json;

TEST_CASE("parse_json decodes a document and reports where malformed text breaks", "[json]") {
  auto good = parse_json(R"({"a": [1, 2, {"b": "c"}]})");
  REQUIRE(good.has_value());
  CHECK((*good)["a"][2]["b"] == "c");
  auto bad = parse_json(R"({"a": [1, 2,)");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code == ava::ErrorCode::parse);
  CHECK(bad.error().message.find("byte") != std::string::npos);
  CHECK_FALSE(parse_json("").has_value());
  CHECK_FALSE(parse_json("\"\xff\"").has_value());  // not UTF-8
  // A raw NUL ends nothing: the text after it must not be ignored.
  CHECK_FALSE(parse_json(std::string_view("1\0x", 3)).has_value());
  CHECK_FALSE(parse_json(std::string_view("{\"a\":1}\0junk", 12)).has_value());
}

TEST_CASE("parse_json refuses nesting past the limit before building anything", "[json]") {
  // A few hundred thousand levels would overflow the stack when copied or dumped.
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  auto refused = parse_json(deep);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ava::ErrorCode::limit_exceeded);
  const std::string objects = [] {
    std::string text;
    for (int i = 0; i < 100000; ++i) text += R"({"a":)";
    return text;
  }();
  CHECK(parse_json(objects).error().code == ava::ErrorCode::limit_exceeded);
  // Exactly at the limit passes; brackets inside strings do not count.
  CHECK(parse_json(std::string(64, '[') + std::string(64, ']')).has_value());
  CHECK_FALSE(parse_json(std::string(65, '[') + std::string(65, ']')).has_value());
  CHECK(
      parse_json(
          R"(["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"[[["])",
          {.max_depth = 2})
          .has_value());
  CHECK_FALSE(parse_json("[[[]]]", {.max_depth = 2}).has_value());
  CHECK(parse_json("[[]]", {.max_depth = 2}).has_value());
}

TEST_CASE("parse_json refuses a document over its byte limit", "[json]") {
  auto refused = parse_json(R"({"text": "0123456789"})", {.max_bytes = 10});
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ava::ErrorCode::limit_exceeded);
}

TEST_CASE("json_field and json_value never throw on a value of another type", "[json]") {
  const json object = {{"name", "x"},  {"count", 3},   {"big", 5000000000LL}, {"neg", -1},
                       {"flag", true}, {"ratio", 0.5}, {"nil", nullptr},      {"list", {1, 2}}};
  CHECK(json_field<std::string>(object, "name") == "x");
  CHECK_FALSE(json_field<std::string>(object, "count"));
  CHECK(json_field<int>(object, "count") == 3);
  CHECK_FALSE(json_field<int>(object, "big"));  // out of range
  CHECK(json_field<std::int64_t>(object, "big") == 5000000000LL);
  CHECK_FALSE(json_field<unsigned>(object, "neg"));
  CHECK(json_field<bool>(object, "flag") == true);
  CHECK_FALSE(json_field<bool>(object, "count"));
  CHECK(json_field<double>(object, "count") == 3.0);
  CHECK(json_field<double>(object, "ratio") == 0.5);
  CHECK_FALSE(json_field<std::string>(object, "nil"));
  CHECK_FALSE(json_field<std::string>(object, "missing"));
  CHECK(json_field<json>(object, "list") == json({1, 2}));
  CHECK(json_value(object, "name", "fallback") == "x");
  CHECK(json_value(object, "count", "fallback") == "fallback");
  CHECK(json_value(json::array({1}), "name", "fallback") == "fallback");
  CHECK(json_value(json("text"), "count", 7) == 7);
  CHECK(json_value(object, "flag", false) == true);
}
