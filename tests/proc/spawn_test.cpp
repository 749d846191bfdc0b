#include <catch2/catch.hpp>

#include <algorithm>

#include "ava/proc/spawn.hpp"

using ava::proc::SpawnOptions;

TEST_CASE("the child environment applies removals and overrides", "[proc][spawn]") {
  SpawnOptions options;
  options.clear_env = true;
  options.env = {{"A", "1"}, {"B", "2"}};
  CHECK(ava::proc::build_environment(options) == std::vector<std::string>{"A=1", "B=2"});

  ::setenv("AVA_SPAWN_TEST_DROP", "x", 1);
  SpawnOptions inherit;
  inherit.env_remove = {"AVA_SPAWN_TEST_DROP"};
  const auto env = ava::proc::build_environment(inherit);
  CHECK(std::ranges::none_of(
      env, [](const std::string& e) { return e.starts_with("AVA_SPAWN_TEST_DROP="); }));
  CHECK(std::ranges::any_of(env, [](const std::string& e) { return e.starts_with("PATH="); }));
}

TEST_CASE("an empty argv is rejected", "[proc][spawn]") {
  const auto child = ava::proc::spawn(SpawnOptions{});
  REQUIRE_FALSE(child.has_value());
  CHECK(child.error().code == ava::ErrorCode::invalid_argument);
}

TEST_CASE("exit statuses describe themselves", "[proc][spawn]") {
  CHECK(ava::proc::ExitStatus{.code = 0}.describe() == "exit code 0");
  CHECK(ava::proc::ExitStatus{.code = -1, .signal = 15}.describe() == "killed by signal 15 (TERM)");
}
