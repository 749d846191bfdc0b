#include <catch2/catch.hpp>

#include <cerrno>

#include "ava/base/error.hpp"

namespace {

using ava::ErrorCode;
using ava::Result;

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return ava::fail(ErrorCode::parse, std::string("not a digit: ") + c);
  return c - '0';
}

Result<int> add_digits(char a, char b) {
  AVA_TRY(int x, parse_digit(a));
  AVA_TRY(const int y, parse_digit(b));
  return x + y;
}

Result<void> check_even(int value) {
  if (value % 2 != 0) return ava::fail(ErrorCode::invalid_argument, "odd");
  return {};
}

Result<int> half_of_sum(char a, char b) {
  AVA_TRY(int sum, add_digits(a, b));
  AVA_TRY_VOID(check_even(sum));
  return sum / 2;
}

}  // namespace

TEST_CASE("AVA_TRY passes values through and returns the first error", "[error]") {
  REQUIRE(add_digits('3', '4') == 7);
  auto bad = add_digits('3', 'x');
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::parse);
  CHECK(bad.error().message == "not a digit: x");
}

TEST_CASE("AVA_TRY_VOID propagates errors of void results", "[error]") {
  REQUIRE(half_of_sum('3', '5') == 4);
  auto odd = half_of_sum('3', '4');
  REQUIRE_FALSE(odd);
  CHECK(odd.error().code == ErrorCode::invalid_argument);
  auto parse = half_of_sum('a', '4');
  REQUIRE_FALSE(parse);
  CHECK(parse.error().code == ErrorCode::parse);
}

TEST_CASE("errors keep their code and origin when context is added", "[error]") {
  auto error = parse_digit('q').error();
  const auto line = error.where.line();
  auto wrapped = std::move(error).with_context("reading config");
  CHECK(wrapped.code == ErrorCode::parse);
  CHECK(wrapped.message == "reading config: not a digit: q");
  CHECK(wrapped.where.line() == line);
  CHECK(wrapped.describe() == "parse: reading config: not a digit: q");
}

TEST_CASE("fail_errno maps errno to codes and names the operation", "[error]") {
  CHECK(ava::base::fail_errno("open x", ENOENT).error().code == ErrorCode::not_found);
  CHECK(ava::base::fail_errno("open x", EACCES).error().code == ErrorCode::permission_denied);
  CHECK(ava::base::fail_errno("mkdir x", EEXIST).error().code == ErrorCode::already_exists);
  auto io = ava::base::fail_errno("write x", EIO).error();
  CHECK(io.code == ErrorCode::io);
  CHECK(io.message.starts_with("write x: "));
}

TEST_CASE("every error code has a name", "[error]") {
  for (int code = 0; code <= static_cast<int>(ErrorCode::internal); ++code) {
    CHECK(ava::base::to_string(static_cast<ErrorCode>(code)) != "unknown");
  }
}
