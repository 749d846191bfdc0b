#include <catch2/catch.hpp>

#include "ava/machine/runtime_files.hpp"

using namespace ava;

TEST_CASE("tokens are 256 random bits", "[machine][security]") {
  auto a = machine::new_bearer_token();
  auto b = machine::new_bearer_token();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->size() == 64);
  CHECK(*a != *b);
}
