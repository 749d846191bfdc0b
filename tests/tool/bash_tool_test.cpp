#include <catch2/catch.hpp>

#include <cstdlib>

#include "ava/proc/environment.hpp"
#include "proc/proc_test_util.hpp"
#include "support/temp_dir.hpp"
#include "tool/tool_test_util.hpp"

using ava::test::call_tool;

TEST_CASE("bash runs in the working folder and shows the exit status", "[tool][bash]") {
  ava::test::TempDir dir;
  const auto result = call_tool("bash", {{"command", "pwd; echo oops >&2"}}, dir.path());
  CHECK_FALSE(result.is_error);
  CHECK(result.joined_text() == dir.path().string() + "\noops\n[exit code 0]");
  CHECK(result.details["exit_code"] == 0);
}

TEST_CASE("a failing command is an error the model can read", "[tool][bash]") {
  ava::test::TempDir dir;
  const auto result = call_tool("bash", {{"command", "exit 4"}}, dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text() == "(no output)\n[exit code 4]");
}

TEST_CASE("a timed-out bash command's grandchildren die too", "[tool][bash]") {
  ava::test::TempDir dir;
  const auto pid_file = dir.path() / "pid";
  ava::tool::ToolContext context{.cwd = dir.path()};
  context.limits.kill_grace = std::chrono::milliseconds(300);
  const auto result = call_tool(
      "bash", {{"command", "sleep 100 & echo $! > pid; echo started; sleep 100"}, {"timeout", 1}},
      context);
  CHECK(result.is_error);
  CHECK(result.details["timed_out"] == true);
  CHECK(result.joined_text() == "started\n[timed out after 1s; the process group was terminated]");
  const pid_t grandchild = ava::test::read_pid(pid_file);
  REQUIRE(grandchild > 0);
  CHECK(ava::test::wait_gone(grandchild));
}

TEST_CASE("long bash output keeps head and tail and says what was cut", "[tool][bash]") {
  ava::test::TempDir dir;
  ava::tool::ToolContext context{.cwd = dir.path()};
  context.limits.tool_output = 1000;
  const auto result = call_tool("bash", {{"command", "seq 1 100000"}}, context);
  const auto text = result.joined_text();
  CHECK(text.starts_with("1\n2\n3\n"));
  CHECK(text.find("[... 587895 bytes omitted ...]") != std::string::npos);
  CHECK(text.find("100000\n[output truncated: 587895 of 588895 bytes omitted from the middle]\n"
                  "[exit code 0]") != std::string::npos);
}

TEST_CASE("a timeout over the maximum is clamped", "[tool][bash]") {
  ava::test::TempDir dir;
  ava::tool::ToolContext context{.cwd = dir.path()};
  context.limits.bash_timeout_max = std::chrono::seconds(1);
  const auto result = call_tool("bash", {{"command", "sleep 5"}, {"timeout", 1000}}, context);
  CHECK(result.details["timed_out"] == true);
}

TEST_CASE("bash arguments are validated", "[tool][bash]") {
  ava::test::TempDir dir;
  CHECK(call_tool("bash", {{"command", "true"}, {"timeout", 0}}, dir.path()).joined_text() ==
        "Invalid arguments for bash: timeout: must be at least 1");
  CHECK(call_tool("bash", nlohmann::json::object(), dir.path()).joined_text() ==
        "Invalid arguments for bash: command: is required");
}

TEST_CASE("bash children do not see credentials from the environment", "[tool][bash][env]") {
  ava::test::TempDir dir;
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-bash-test-0123456789", 1);
  ::setenv("FOO_TOKEN", "foo-token-value", 1);
  ::setenv("AVA_BASH_KEPT_TOKEN", "kept-value", 1);
  const auto command =
      "echo \"key=${ANTHROPIC_API_KEY:-unset} token=${FOO_TOKEN:-unset} "
      "kept=${AVA_BASH_KEPT_TOKEN:-unset}\"; test -n \"$PATH\" && echo path; "
      "test -n \"$HOME\" && echo home";
  const auto scrubbed = call_tool("bash", {{"command", command}}, dir.path());
  CHECK(scrubbed.joined_text() == "key=unset token=unset kept=unset\npath\nhome\n[exit code 0]");

  // settings.json "childEnvironment": {"keep": [...]} lets a named one through.
  ava::proc::set_kept_variables({"AVA_BASH_KEPT_TOKEN"});
  const auto kept = call_tool("bash", {{"command", command}}, dir.path());
  ava::proc::set_kept_variables({});
  CHECK(kept.joined_text() == "key=unset token=unset kept=kept-value\npath\nhome\n[exit code 0]");
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("FOO_TOKEN");
  ::unsetenv("AVA_BASH_KEPT_TOKEN");
}
