#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ava/tool/schema.hpp"

using nlohmann::json;

namespace {

std::string problem(const json& schema, const json& value) {
  auto result = ava::tool::validate(schema, value);
  if (result) return "ok";
  CHECK(result.error().code == ava::ErrorCode::invalid_argument);
  return result.error().message;
}

const json edit_like = json::parse(R"({
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1},
    "mode": {"enum": ["a", "b"]},
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
    "edits": {"type": "array", "minItems": 1, "items": {
      "type": "object",
      "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
      "required": ["oldText", "newText"],
      "additionalProperties": false}}
  },
  "required": ["path"],
  "additionalProperties": false
})");

}  // namespace

TEST_CASE("valid arguments pass", "[tool][schema]") {
  CHECK(problem(edit_like, json{{"path", "a"},
                                {"count", 3},
                                {"edits", {{{"oldText", "x"}, {"newText", "y"}}}}}) == "ok");
  CHECK(problem(edit_like, json{{"path", "a"}, {"count", 3.0}}) == "ok");
}

TEST_CASE("validation errors name the field and the rule", "[tool][schema]") {
  CHECK(problem(edit_like, json::object()) == "path: is required");
  CHECK(problem(edit_like, json::array()) == "arguments: expected object, got array");
  CHECK(problem(edit_like, json{{"path", 7}}) == "path: expected string, got integer");
  CHECK(problem(edit_like, json{{"path", ""}}) == "path: must be at least 1 characters long");
  CHECK(problem(edit_like, json{{"path", "a"}, {"extra", 1}}) == "extra: is not an accepted field");
  CHECK(problem(edit_like, json{{"path", "a"}, {"mode", "c"}}) ==
        R"(mode: must be one of "a", "b")");
  CHECK(problem(edit_like, json{{"path", "a"}, {"count", 0}}) == "count: must be at least 1");
  CHECK(problem(edit_like, json{{"path", "a"}, {"count", 11}}) == "count: must be at most 10");
  CHECK(problem(edit_like, json{{"path", "a"}, {"count", 1.5}}) ==
        "count: expected integer, got number");
  CHECK(problem(edit_like, json{{"path", "a"}, {"edits", json::array()}}) ==
        "edits: needs at least 1 item(s)");
  CHECK(problem(edit_like, json{{"path", "a"}, {"edits", {{{"oldText", 1}, {"newText", ""}}}}}) ==
        "edits[0].oldText: expected string, got integer");
  CHECK(problem(edit_like, json{{"path", "a"}, {"edits", {{{"oldText", "x"}}}}}) ==
        "edits[0].newText: is required");
}

TEST_CASE("type lists, null and booleans are checked", "[tool][schema]") {
  const json schema = {{"type", {"string", "null"}}};
  CHECK(problem(schema, nullptr) == "ok");
  CHECK(problem(schema, "x") == "ok");
  CHECK(problem(schema, true) == "arguments: expected string or null, got boolean");
  CHECK(problem(json{{"type", "boolean"}}, 1) == "arguments: expected boolean, got integer");
  CHECK(problem(json{{"type", "number"}}, 1) == "ok");
}

TEST_CASE("anyOf reports the issue of the closest form", "[tool][schema]") {
  const json schema = {
      {"anyOf", {edit_like, json::parse(R"({"type": "object", "required": ["old_string"],
                            "properties": {"old_string": {"type": "string"}}})")}}};
  CHECK(problem(schema, json{{"old_string", "x"}}) == "ok");
  CHECK(problem(schema, json{{"path", "a"}, {"edits", {{{"oldText", 1}, {"newText", ""}}}}}) ==
        "edits[0].oldText: expected string, got integer");
}

TEST_CASE("oneOf rejects a value matching two forms", "[tool][schema]") {
  const json schema = {{"oneOf", {{{"type", "integer"}}, {{"type", "number"}}}}};
  CHECK(problem(schema, 1.5) == "ok");
  CHECK(problem(schema, 2) == "arguments: matches more than one accepted form");
}
