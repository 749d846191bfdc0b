#include <catch2/catch.hpp>

#include <unistd.h>

#include <csignal>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/proc/run.hpp"
#include "support/run_awaitable.hpp"
#include "support/temp_dir.hpp"

using ava::proc::RunOptions;
using ava::proc::RunResult;
using ava::test::run_awaitable;

namespace {

RunResult run_ok(RunOptions options) {
  auto result = run_awaitable(ava::proc::run(std::move(options)));
  REQUIRE(result.has_value());
  return *result;
}

RunOptions shell(const std::string& script) {
  RunOptions options;
  options.spawn.argv = {"sh", "-c", script};
  return options;
}

}  // namespace

TEST_CASE("exit code and both streams are reported", "[proc][run]") {
  const auto result = run_ok(shell("echo out; echo err >&2; exit 3"));
  CHECK(result.status.code == 3);
  CHECK(result.status.signal == 0);
  CHECK(result.out.text == "out\n");
  CHECK(result.err.text == "err\n");
  CHECK_FALSE(result.timed_out);
  CHECK_FALSE(result.cancelled);
  CHECK(result.duration.count() > 0);
}

TEST_CASE("a killing signal is reported instead of an exit code", "[proc][run]") {
  const auto result = run_ok(shell("kill -9 $$"));
  CHECK(result.status.signal == SIGKILL);
  CHECK(result.status.describe() == "killed by signal 9 (KILL)");
}

TEST_CASE("merged stderr arrives in order in stdout", "[proc][run]") {
  auto options = shell("echo one; echo two >&2; echo three");
  options.spawn.stderr_mode = ava::proc::StderrMode::merge;
  const auto result = run_ok(options);
  CHECK(result.out.text == "one\ntwo\nthree\n");
  CHECK(result.err.text.empty());
}

TEST_CASE("stdin is fed and closed, or reads as empty", "[proc][run]") {
  RunOptions fed;
  fed.spawn.argv = {"cat"};
  fed.spawn.stdin_mode = ava::proc::StdinMode::pipe;
  fed.stdin_bytes = std::string(std::size_t{300} * 1024, 'x');  // more than a pipe buffer holds
  CHECK(run_ok(fed).out.total_bytes == std::size_t{300} * 1024);

  RunOptions closed;
  closed.spawn.argv = {"cat"};
  const auto result = run_ok(closed);
  CHECK(result.status.success());
  CHECK(result.out.text.empty());
}

TEST_CASE("environment can be added to, replaced and cleared", "[proc][run]") {
  auto options = shell("echo \"$AVA_A|$AVA_B|$HOME\"");
  options.spawn.env = {{"AVA_A", "added"}, {"HOME", "/replaced"}};
  CHECK(run_ok(options).out.text == "added||/replaced\n");

  RunOptions cleared;
  cleared.spawn.argv = {"/usr/bin/env"};
  cleared.spawn.clear_env = true;
  cleared.spawn.env = {{"ONLY", "1"}};
  CHECK(run_ok(cleared).out.text == "ONLY=1\n");
}

TEST_CASE("the child runs in the requested folder", "[proc][run]") {
  ava::test::TempDir dir;
  auto options = shell("pwd");
  options.spawn.cwd = dir.path();
  CHECK(run_ok(options).out.text == dir.path().string() + "\n");
}

TEST_CASE("the child leads its own process group", "[proc][run]") {
  const auto result = run_ok(shell("ps -o pgid= -p $$"));
  CHECK(std::stol(result.out.text) == result.pid);
}

TEST_CASE("a missing program is an error, not an exit code", "[proc][run]") {
  RunOptions options;
  options.spawn.argv = {"/nonexistent/ava-no-such-program"};
  const auto result = run_awaitable(ava::proc::run(options));
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ava::ErrorCode::not_found);
}

TEST_CASE("output over the bound keeps head and tail", "[proc][run]") {
  auto options = shell("seq 1 100000");
  options.capture_limit = 1000;
  const auto result = run_ok(options);
  CHECK(result.out.text.starts_with("1\n2\n3\n"));
  CHECK(result.out.text.ends_with("99999\n100000\n"));
  CHECK(result.out.total_bytes == 588895);
  CHECK(result.out.omitted_bytes == 588895 - 1000);
  CHECK(result.out.text.find("[... 587895 bytes omitted ...]") != std::string::npos);
}

TEST_CASE("200 concurrent short commands all complete", "[proc][run]") {
  boost::asio::io_context context;
  constexpr int count = 200;
  std::vector<std::string> outputs(count);
  int failures = 0;
  for (int i = 0; i < count; ++i) {
    auto options = shell("echo $0");
    options.spawn.argv.push_back(std::to_string(i));
    boost::asio::co_spawn(
        context,
        [&, i, options]() -> boost::asio::awaitable<void> {
          auto result = co_await ava::proc::run(options);
          if (!result || !result->status.success()) {
            ++failures;
          } else {
            outputs[i] = result->out.text;
          }
        },
        boost::asio::detached);
  }
  context.run_for(std::chrono::seconds(120));
  CHECK(failures == 0);
  for (int i = 0; i < count; ++i) CHECK(outputs[i] == std::to_string(i) + "\n");
}

TEST_CASE("descriptors the parent leaked are not inherited", "[proc][run]") {
  ava::test::TempDir dir;
  const int leaked = ::dup(STDERR_FILENO);  // no O_CLOEXEC
  REQUIRE(leaked >= 0);
  const auto result = run_ok(
      shell("test -e /proc/$$/fd/" + std::to_string(leaked) + " && echo leaked || echo clean"));
  ::close(leaked);
  CHECK(result.out.text == "clean\n");
}
