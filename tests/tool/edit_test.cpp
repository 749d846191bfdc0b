#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ava/tool/edit.hpp"

using ava::tool::TextEdit;

namespace {

// Applies a batch, or returns the rejection message prefixed with "error: ".
std::string edit(std::string_view original, const std::vector<TextEdit>& edits) {
  auto located = ava::tool::locate_edits(original, edits);
  if (!located) return "error: " + located.error().message;
  return ava::tool::apply_replacements(original, *located);
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("edits match in the original, not in each other's output", "[tool][edit]") {
  CHECK(edit("a b c", {{"a", "b"}, {"b", "c"}}) == "b c c");
}

TEST_CASE("a missing oldText rejects the batch and names the edit", "[tool][edit]") {
  const auto result = edit("alpha\nbeta\n", {{"alpha", "A"}, {"gamma", "G"}});
  CHECK(contains(result, "error: edits[1]: oldText was not found"));
  CHECK_FALSE(contains(result, "edits[0]"));
  CHECK(contains(result, "No edits were applied."));
}

TEST_CASE("an ambiguous oldText is rejected with its match count", "[tool][edit]") {
  const auto result = edit("x = 1\nx = 1\nx = 1\n", {{"x = 1", "x = 2"}});
  CHECK(contains(result, "edits[0]: oldText matches 3 times"));
}

TEST_CASE("overlapping edits are rejected, naming both", "[tool][edit]") {
  const auto result = edit("one two three", {{"two three", "2 3"}, {"one two", "1 2"}});
  CHECK(contains(result, "edits[0] and edits[1] overlap"));
}

TEST_CASE("adjacent edits that only touch are applied", "[tool][edit]") {
  CHECK(edit("abcdef", {{"def", "DEF"}, {"abc", "ABC"}}) == "ABCDEF");
  CHECK(edit("line1\nline2\n", {{"line1\n", "first\n"}, {"line2\n", "second\n"}}) ==
        "first\nsecond\n");
}

TEST_CASE("an empty oldText is rejected", "[tool][edit]") {
  CHECK(contains(edit("text", {{"", "x"}}), "edits[0]: oldText is empty"));
}

TEST_CASE("every problem of a batch is listed at once", "[tool][edit]") {
  const auto result = edit("aa bb", {{"zz", ""}, {"", "x"}, {"a", "b"}});
  CHECK(contains(result, "edits[0]: oldText was not found"));
  CHECK(contains(result, "edits[1]: oldText is empty"));
  CHECK(contains(result, "edits[2]: oldText matches 2 times"));
}

TEST_CASE("CRLF endings outside the edit are preserved", "[tool][edit]") {
  CHECK(edit("one\r\ntwo\r\nthree\r\n", {{"two", "2"}}) == "one\r\n2\r\nthree\r\n");
}

TEST_CASE("an LF oldText matches a CRLF file and the new text gets CRLF", "[tool][edit]") {
  CHECK(edit("one\r\ntwo\r\nthree\r\n", {{"one\ntwo", "1\n2"}}) == "1\r\n2\r\nthree\r\n");
}

TEST_CASE("a byte order mark and a missing final newline survive", "[tool][edit]") {
  CHECK(edit("\xEF\xBB\xBFhello\nworld", {{"hello", "hi"}}) == "\xEF\xBB\xBFhi\nworld");
  CHECK(edit("\xEF\xBB\xBFhello\nworld", {{"world", "earth"}}) == "\xEF\xBB\xBFhello\nearth");
}

TEST_CASE("legacy single replacement must be unique", "[tool][edit]") {
  auto once = ava::tool::locate_legacy_edit("a a", {"a", "b"}, false);
  REQUIRE_FALSE(once.has_value());
  CHECK(contains(once.error().message, "matches 2 times"));
}

TEST_CASE("legacy replace_all replaces every occurrence", "[tool][edit]") {
  auto all = ava::tool::locate_legacy_edit("aaa-aa", {"aa", "b"}, true);
  REQUIRE(all.has_value());
  CHECK(ava::tool::apply_replacements("aaa-aa", *all) == "ba-b");
  auto none = ava::tool::locate_legacy_edit("abc", {"x", "y"}, true);
  REQUIRE_FALSE(none.has_value());
  CHECK(contains(none.error().message, "old_string was not found"));
}
