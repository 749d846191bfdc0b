#include <benchmark/benchmark.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/proc/run.hpp"

// Spawn-to-exit of `true` through proc::run: posix_spawn, pidfd, pipes,
// reactor wake-up, reap. Target < 2 ms.
static void BM_RunTrueToExit(benchmark::State& state) {
  boost::asio::io_context context;
  ava::proc::RunOptions options;
  options.spawn.argv = {state.range(0) == 0 ? "true" : "/bin/true"};
  for (auto _ : state) {
    bool ok = false;
    boost::asio::co_spawn(
        context,
        [&]() -> boost::asio::awaitable<void> {
          auto result = co_await ava::proc::run(options);
          ok = result.has_value() && result->status.success();
        },
        boost::asio::detached);
    context.run();
    context.restart();
    if (!ok) state.SkipWithError("run failed");
  }
}
// Argument 0: "true" looked up in PATH; 1: "/bin/true".
BENCHMARK(BM_RunTrueToExit)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The same with 50 processes in flight at once, per process.
static void BM_Run50ConcurrentTrue(benchmark::State& state) {
  boost::asio::io_context context;
  ava::proc::RunOptions options;
  options.spawn.argv = {"true"};
  constexpr int batch = 50;
  for (auto _ : state) {
    int ok = 0;
    for (int i = 0; i < batch; ++i) {
      boost::asio::co_spawn(
          context,
          [&]() -> boost::asio::awaitable<void> {
            auto result = co_await ava::proc::run(options);
            if (result.has_value() && result->status.success()) ++ok;
          },
          boost::asio::detached);
    }
    context.run();
    context.restart();
    if (ok != batch) state.SkipWithError("run failed");
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_Run50ConcurrentTrue)->Unit(benchmark::kMillisecond);

// Baseline for the figures above: posix_spawn of /bin/true and a blocking
// waitpid, no pipes, no reactor. The difference is what proc adds.
static void BM_RawPosixSpawnTrue(benchmark::State& state) {
  char name[] = "true";
  char* argv[] = {name, nullptr};
  for (auto _ : state) {
    pid_t pid = 0;
    if (::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ) != 0) {
      state.SkipWithError("spawn failed");
      break;
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
}
BENCHMARK(BM_RawPosixSpawnTrue)->Unit(benchmark::kMillisecond);
