#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "ava/base/url_encoding.hpp"

using ava::base::QueryParams;

TEST_CASE("url encoding: forms are percent-encoded, unreserved characters kept", "[base]") {
  CHECK(ava::base::form_encode({{"a b", "c&d=é"}}) == "a%20b=c%26d%3D%C3%A9");
  CHECK(ava::base::percent_encode("AZaz09-._~") == "AZaz09-._~");
  CHECK(ava::base::percent_encode("/?#+%") == "%2F%3F%23%2B%25");
}

TEST_CASE("url encoding: queries decode once, '+' as a space", "[base]") {
  const auto parsed = ava::base::parse_query("code=x%2By&state=a+b&empty=&flag&&=v");
  REQUIRE(parsed);
  CHECK(*parsed ==
        QueryParams{{"code", "x+y"}, {"state", "a b"}, {"empty", ""}, {"flag", ""}, {"", "v"}});
  const auto twice = ava::base::parse_query("a=%2541");
  REQUIRE(twice);
  CHECK(twice->front().second == "%41");  // decoded once, never again
}

TEST_CASE("url encoding: malformed escapes and NUL are refused", "[base]") {
  CHECK(!ava::base::parse_query("a=%zz"));
  CHECK(!ava::base::parse_query("a=%4"));
  CHECK(!ava::base::parse_query("a=%00"));
  CHECK(!ava::base::parse_query("a%00=1"));
  CHECK(!ava::base::parse_query("a=b c"));  // a raw space is not a query character
}

TEST_CASE("url encoding: a view is read by its length, never to a NUL", "[base]") {
  // The fuzzer found Boost 1.81 reading a query up to the next NUL, so a
  // view into larger text answered with (or read past) the text after it.
  const std::string text = "a=1&b=2";
  const auto empty = ava::base::parse_query(std::string_view(text).substr(3, 0));
  REQUIRE(empty);
  CHECK(empty->empty());
  const auto parsed = ava::base::parse_query(std::string_view(text).substr(0, 3));
  REQUIRE(parsed);
  CHECK(*parsed == QueryParams{{"a", "1"}});
  CHECK(ava::base::percent_encode(std::string_view(text).substr(0, 1)) == "a");
}
