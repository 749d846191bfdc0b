#include <benchmark/benchmark.h>

#include <filesystem>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/proc/run.hpp"
#include "ava/proc/sandbox.hpp"

// What the sandbox adds to a bash call: `bash -c true` to exit through
// proc::run, unsandboxed (0), in workspace-write with the network off (1:
// the starter thread, no_new_privs, the Landlock ruleset of the project and
// the temp folders, the seccomp filter), and in read-only (2). Target: the
// difference < 2 ms.
static void BM_BashTrueSandboxed(benchmark::State& state) {
  using ava::proc::SandboxMode;
  const SandboxMode modes[] = {SandboxMode::off, SandboxMode::workspace_write,
                               SandboxMode::read_only};
  const auto mode = modes[state.range(0)];
  if (mode != SandboxMode::off && !ava::proc::sandbox_support().filesystem()) {
    state.SkipWithError("no Landlock in this kernel");
    return;
  }
  boost::asio::io_context context;
  ava::proc::RunOptions options;
  options.spawn.argv = {"bash", "-c", "true"};
  options.spawn.sandbox = {
      .mode = mode, .writable_roots = {std::filesystem::current_path()}, .network = false};
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
BENCHMARK(BM_BashTrueSandboxed)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
