// The shape tables: one table gives the encoder, the decoder and the
// TypeScript interface, so the three cannot disagree.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ava/protocol/shape.hpp"
#include "ava/protocol/wire.hpp"

namespace sample {

enum class Color { red, green, blue };
struct Inner {
  std::string label;
};
struct Outer {
  Color color = Color::red;
  std::int64_t count = 0;
  double ratio = 0;
  bool on = false;
  std::optional<std::string> note;
  std::vector<Inner> items;
  std::map<std::string, bool> flags;
  Inner inner;
};

}  // namespace sample

namespace ava::protocol {
template <>
struct EnumShape<sample::Color> {
  static constexpr std::string_view name = "Color";
  static constexpr std::string_view doc = "A color.";
  static constexpr std::array values{std::pair{sample::Color::red, std::string_view("red")},
                                     std::pair{sample::Color::green, std::string_view("green")},
                                     std::pair{sample::Color::blue, std::string_view("blue")}};
};
template <>
struct Shape<sample::Inner> {
  static constexpr std::string_view name = "Inner";
  static constexpr std::string_view doc = "Inner.";
  static constexpr std::string_view what = "an item";
  static constexpr auto fields = std::tuple{field("label", &sample::Inner::label)};
};
template <>
struct Shape<sample::Outer> {
  static constexpr std::string_view name = "Outer";
  static constexpr std::string_view doc = "Outer.";
  static constexpr auto fields = std::tuple{
      omittable("color", &sample::Outer::color), field("count", &sample::Outer::count),
      field("ratio", &sample::Outer::ratio),     field("on", &sample::Outer::on),
      field("note", &sample::Outer::note),       field("items", &sample::Outer::items),
      field("flags", &sample::Outer::flags),     field("inner", &sample::Outer::inner, "Label")};
};
}  // namespace ava::protocol

using namespace ava;
using nlohmann::json;

namespace {
std::string error_of(const json& value) {
  auto decoded = protocol::from_json<sample::Outer>(value);
  REQUIRE_FALSE(decoded);
  return decoded.error().message;
}
}  // namespace

TEST_CASE("shapes encode and decode every member kind, and round-trip", "[protocol][shape]") {
  const sample::Outer original{.color = sample::Color::blue,
                               .count = 3,
                               .ratio = 0.5,
                               .on = true,
                               .note = "n",
                               .items = {{"a"}, {"b"}},
                               .flags = {{"x", true}},
                               .inner = {"i"}};
  const json encoded = protocol::to_json(original);
  CHECK(encoded == json::parse(R"({"color":"blue","count":3,"ratio":0.5,"on":true,"note":"n",
    "items":[{"label":"a"},{"label":"b"}],"flags":{"x":true},"inner":{"label":"i"}})"));
  auto decoded = protocol::from_json<sample::Outer>(encoded);
  REQUIRE(decoded);
  CHECK(protocol::to_json(*decoded) == encoded);
  // nullopt is left out rather than written as null.
  CHECK_FALSE(protocol::to_json(sample::Outer{}).contains("note"));
}

TEST_CASE("decoding: absent or null keeps the default, unknown fields pass", "[protocol][shape]") {
  auto decoded = protocol::from_json<sample::Outer>(json::parse(R"({"count":null,"later":1})"));
  REQUIRE(decoded);
  CHECK(decoded->color == sample::Color::red);
  CHECK(decoded->count == 0);
  CHECK_FALSE(decoded->note);
}

TEST_CASE("decoding: every type error names its field", "[protocol][shape]") {
  CHECK(error_of(json::array()) == "the body must be a JSON object");
  CHECK(error_of({{"color", "pink"}}) == R"(color must be "red", "green" or "blue")");
  CHECK(error_of({{"count", 1.5}}) == "count must be an integer");
  CHECK(error_of({{"ratio", "x"}}) == "ratio must be a number");
  CHECK(error_of({{"on", 1}}) == "on must be true or false");
  CHECK(error_of({{"note", 1}}) == "note must be a string");
  CHECK(error_of({{"items", json::object()}}) == "items must be an array");
  CHECK(error_of({{"items", json::array({1})}}) == "an item must be a JSON object");
  CHECK(error_of({{"items", json::array({{{"label", 2}}})}}) == "label must be a string");
  CHECK(error_of({{"flags", {{"x", "yes"}}}}) == "flags must be true or false");
  CHECK(error_of({{"inner", 3}}) == "an item must be a JSON object");
}

TEST_CASE("the TypeScript interface comes from the same table", "[protocol][shape]") {
  const auto shape = protocol::object_shape<sample::Outer>();
  CHECK(shape.name == "Outer");
  std::vector<std::string> lines;
  for (const auto& field : shape.fields) {
    lines.push_back(field.name + (field.optional ? "?: " : ": ") + field.type);
  }
  CHECK(lines == std::vector<std::string>{"color?: Color", "count: number", "ratio: number",
                                          "on: boolean", "note?: string", "items: Inner[]",
                                          "flags: Record<string, boolean>", "inner: Label"});
  CHECK(protocol::alias_shape<sample::Color>().type == R"("red" | "green" | "blue")");
  // The API's own shapes are registered from their tables.
  const auto* skill = protocol::find_object("SkillUpdate");
  REQUIRE(skill != nullptr);
  REQUIRE(skill->fields.size() == 2);
  CHECK(skill->fields[0].type == "boolean | null");
  CHECK_FALSE(skill->fields[0].optional);
  CHECK(skill->fields[1].optional);
}
