#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "ava/proc/run.hpp"
#include "proc/proc_test_util.hpp"
#include "support/run_awaitable.hpp"
#include "support/temp_dir.hpp"

using namespace std::chrono_literals;
using ava::proc::RunOptions;
using ava::proc::RunResult;

namespace {

RunOptions shell(const std::string& script) {
  RunOptions options;
  options.spawn.argv = {"sh", "-c", script};
  return options;
}

}  // namespace

TEST_CASE("a timed-out command's group dies, grandchildren included", "[proc][run]") {
  ava::test::TempDir dir;
  const auto pid_file = dir.path() / "grandchild.pid";
  auto options = shell("sleep 100 & echo $! > " + pid_file.string() + "; sleep 100");
  options.timeout = 300ms;
  options.kill_grace = 500ms;
  const auto result = ava::test::run_awaitable(ava::proc::run(options));
  REQUIRE(result.has_value());
  CHECK(result->timed_out);
  CHECK_FALSE(result->cancelled);
  CHECK(result->status.signal == SIGTERM);
  const pid_t grandchild = ava::test::read_pid(pid_file);
  REQUIRE(grandchild > 0);
  CHECK(ava::test::wait_gone(grandchild));
}

TEST_CASE("a group that ignores SIGTERM is killed after the grace", "[proc][run]") {
  auto options = shell("trap '' TERM; sleep 100");
  options.timeout = 200ms;
  options.kill_grace = 200ms;
  const auto result = ava::test::run_awaitable(ava::proc::run(options));
  REQUIRE(result.has_value());
  CHECK(result->timed_out);
  CHECK(result->status.signal == SIGKILL);
}

TEST_CASE("a background job does not keep the run waiting after the leader exits", "[proc][run]") {
  ava::test::TempDir dir;
  const auto pid_file = dir.path() / "background.pid";
  auto options = shell("sleep 100 & echo $! > " + pid_file.string() + "; echo done");
  options.timeout = 60s;
  const auto result = ava::test::run_awaitable(ava::proc::run(options));
  REQUIRE(result.has_value());
  CHECK_FALSE(result->timed_out);
  CHECK(result->status.success());
  CHECK(result->out.text == "done\n");
  CHECK(result->duration < 30s);
  CHECK(ava::test::wait_gone(ava::test::read_pid(pid_file)));
}

TEST_CASE("cancellation ends the process group and is reported", "[proc][run]") {
  ava::test::TempDir dir;
  const auto pid_file = dir.path() / "grandchild.pid";
  auto options = shell("sleep 100 & echo $! > " + pid_file.string() + "; echo started; sleep 100");
  options.kill_grace = 500ms;

  boost::asio::io_context context;
  boost::asio::cancellation_signal cancel;
  std::optional<ava::Result<RunResult>> outcome;
  boost::asio::co_spawn(context, ava::proc::run(options),
                        boost::asio::bind_cancellation_slot(
                            cancel.slot(), [&](const std::exception_ptr& error, auto result) {
                              if (error) std::rethrow_exception(error);
                              outcome = std::move(result);
                            }));
  boost::asio::steady_timer timer(context, 300ms);
  timer.async_wait([&](auto) { cancel.emit(boost::asio::cancellation_type::terminal); });
  context.run_for(30s);

  REQUIRE(outcome.has_value());
  REQUIRE(outcome->has_value());
  const auto& result = **outcome;
  CHECK(result.cancelled);
  CHECK_FALSE(result.timed_out);
  CHECK(result.status.signal == SIGTERM);
  CHECK(result.out.text == "started\n");
  const pid_t grandchild = ava::test::read_pid(pid_file);
  REQUIRE(grandchild > 0);
  CHECK(ava::test::wait_gone(grandchild));
  CHECK(ava::test::process_gone(result.pid));
}

TEST_CASE("cancellation that arrives as the process starts is reported, not fatal", "[proc][run]") {
  // The stdin feeder and the stderr reader have nothing to do and finish at
  // once; a cancellation already pending then must not escape Asio's co_spawn.
  auto options = shell("sleep 100");
  options.kill_grace = 200ms;
  boost::asio::io_context context;
  boost::asio::cancellation_signal cancel;
  std::optional<ava::Result<RunResult>> outcome;
  boost::asio::co_spawn(context, ava::proc::run(options),
                        boost::asio::bind_cancellation_slot(
                            cancel.slot(), [&](const std::exception_ptr& error, auto result) {
                              if (error) std::rethrow_exception(error);
                              outcome = std::move(result);
                            }));
  // Run until the child is spawned and the readers are queued, then cancel.
  context.poll();
  cancel.emit(boost::asio::cancellation_type::terminal);
  context.run_for(30s);
  REQUIRE(outcome.has_value());
  REQUIRE(outcome->has_value());
  CHECK((*outcome)->cancelled);
}
