#include <catch2/catch.hpp>

#include <string>

#include "ava/base/utf8.hpp"

namespace utf8 = ava::base::utf8;

TEST_CASE("utf8: sequence lengths refuse overlong forms, surrogates and cut sequences", "[base]") {
  CHECK(utf8::sequence("\xC3\xA9", 0) == 2);
  CHECK(utf8::sequence("\xE2\x82\xAC", 0) == 3);
  CHECK(utf8::sequence("\xF0\x9F\x98\x80", 0) == 4);
  CHECK(utf8::sequence("\xC0\xAF", 0) == 0);          // overlong '/'
  CHECK(utf8::sequence("\xED\xA0\x80", 0) == 0);      // surrogate
  CHECK(utf8::sequence("\xF4\x90\x80\x80", 0) == 0);  // above U+10FFFF
  CHECK(utf8::sequence("\xE2\x82", 0) == 0);          // cut by the end
}

TEST_CASE("utf8: cutting never splits a character", "[base]") {
  const std::string text =
      "ab\xE2\x82\xAC"
      "cd";  // "ab€cd"
  CHECK(utf8::floor_boundary(text, 0) == 0);
  CHECK(utf8::floor_boundary(text, 2) == 2);
  CHECK(utf8::floor_boundary(text, 3) == 2);
  CHECK(utf8::floor_boundary(text, 4) == 2);
  CHECK(utf8::floor_boundary(text, 5) == 5);
  CHECK(utf8::floor_boundary(text, 100) == text.size());
  CHECK(utf8::truncate(text, 4) == "ab");
  CHECK(utf8::truncate(text, 6) ==
        "ab\xE2\x82\xAC"
        "c");
  CHECK(utf8::code_points(text) == 5);
}

TEST_CASE("utf8: make_valid replaces each maximal subpart with one U+FFFD", "[base]") {
  CHECK(utf8::make_valid("plain") == "plain");
  CHECK(utf8::make_valid("caf\xE9 ok") == "caf\xEF\xBF\xBD ok");  // Latin-1
  CHECK(utf8::make_valid("\xE2\x82"
                         "x") == "\xEF\xBF\xBDx");                    // one cut sequence
  CHECK(utf8::make_valid("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // neither byte can start one
  CHECK(utf8::make_valid("\xF0\x9F\x98\x80") == "\xF0\x9F\x98\x80");
  CHECK(utf8::make_valid(std::string("a\0b", 3)) == std::string("a\0b", 3));  // NUL is valid UTF-8
}
