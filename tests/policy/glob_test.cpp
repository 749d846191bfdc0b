#include <catch2/catch.hpp>

#include <string>

#include "policy/glob.hpp"

using ava::policy::glob_match;

TEST_CASE("path globs: * stays in a segment, ** crosses them", "[policy]") {
  CHECK(glob_match("/p/src/*.cpp", "/p/src/a.cpp", true));
  CHECK_FALSE(glob_match("/p/src/*.cpp", "/p/src/x/a.cpp", true));
  CHECK(glob_match("/p/src/**", "/p/src/x/y/a.cpp", true));
  CHECK(glob_match("/p/src/**/a.cpp", "/p/src/a.cpp", true));
  CHECK(glob_match("/p/src/**/a.cpp", "/p/src/x/y/a.cpp", true));
  CHECK_FALSE(glob_match("/p/src/**/a.cpp", "/p/srcx/a.cpp", true));
  CHECK(glob_match("/p/?.txt", "/p/a.txt", true));
  CHECK_FALSE(glob_match("/p/?.txt", "/p//.txt", true));
  CHECK_FALSE(glob_match("/p/src", "/p/src2", true));
}

TEST_CASE("command globs: * matches anything, spaces and slashes too", "[policy]") {
  CHECK(glob_match("git status*", "git status --short", false));
  CHECK(glob_match("git status*", "git status", false));
  CHECK_FALSE(glob_match("git status*", "git log", false));
  CHECK(glob_match("npm * test", "npm run --silent test", false));
}

TEST_CASE("globs stay linear on hostile patterns", "[policy]") {
  const std::string text(4000, 'a');
  const std::string pattern = std::string(60, '*') + "b";
  CHECK_FALSE(glob_match(pattern, text, false));
  CHECK_FALSE(glob_match("/**/**/**/**/**/**/b", "/" + text, true));
}
