#include <catch2/catch.hpp>

#include "ava/policy/policy.hpp"

using namespace ava::policy;

TEST_CASE("rules parse in the forms users write", "[policy]") {
  auto bash = parse_rule("Bash(git status*)");
  REQUIRE(bash);
  CHECK(bash->tool == "bash");
  CHECK(bash->specifier == "git status*");
  CHECK(bash->text == "Bash(git status*)");
  auto mcp = parse_rule("mcp__github__*");
  REQUIRE(mcp);
  CHECK(mcp->tool == "mcp__github__*");
  CHECK(mcp->specifier.empty());
  CHECK(parse_rule("MultiEdit(src/**)")->tool == "edit");
  CHECK_FALSE(parse_rule(""));
  CHECK_FALSE(parse_rule("bash("));
  CHECK_FALSE(parse_rule("bash()"));
  CHECK_FALSE(parse_rule("ba sh"));
  CHECK_FALSE(parse_rule("(x)"));
}

TEST_CASE("modes parse by Ava's names and Claude Code's", "[policy]") {
  CHECK(parse_mode("accept-edits") == Mode::accept_edits);
  CHECK(parse_mode("acceptEdits") == Mode::accept_edits);
  CHECK(parse_mode("default") == Mode::ask);
  CHECK(parse_mode("auto") == Mode::auto_);
  CHECK(parse_mode("plan") == Mode::plan);
  CHECK(parse_mode("yolo").error().message.find("ask, accept-edits, plan or auto") !=
        std::string::npos);
}
