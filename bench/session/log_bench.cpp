// Session log benchmarks. Logs are written under $TMPDIR (default /tmp).
//   build/release/bench/session/ava_session_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "ava/session/codec.hpp"
#include "ava/session/context.hpp"
#include "ava/session/log_writer.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace ava::session;

// Minor page faults so far: first touches of fresh memory, which cost this
// VM about 17 us each, so they explain much of the open benchmark's spread.
double minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_minflt);
}
namespace content = ava::content;

SessionStarted start() {
  return {.session_id = "bench", .model = "m", .cwd = "/w", .version = "b"};
}

// An event whose encoded JSON line is about 1 KiB.
EventBody one_kib_event(int i) {
  return ToolResult{
      .turn_id = "turn-" + std::to_string(i / 10),
      .step = 1,
      .call_id = "call_" + std::to_string(i),
      .tool_name = "bash",
      .content = {content::TextBlock{std::string(880, static_cast<char>('a' + i % 26))}}};
}

// A conversation-shaped mix: input, turn, step, assistant with a tool call,
// tool output of varying size, usage, closers.
std::vector<EventBody> conversation_turn(int turn) {
  const std::string id = "t" + std::to_string(turn);
  std::string output;
  for (int line = 0; line < 1 + turn % 40; ++line) {
    output += "src/file_" + std::to_string(line) + ".cpp:" + std::to_string(line * 7) +
              ": int value = compute(" + std::to_string(turn) + ");\n";
  }
  return {
      InputAcknowledged{.input_id = "in-" + id,
                        .text = "please fix the failing test in module " + id},
      TurnStarted{.turn_id = id},
      StepStarted{.turn_id = id, .step = 1, .model = "m"},
      InputClaimed{.input_ids = {"in-" + id}, .turn_id = id, .step = 1},
      AssistantMessage{.turn_id = id,
                       .step = 1,
                       .content = {content::TextBlock{"Let me search for the failing assertion."},
                                   content::ToolCallBlock{
                                       .id = "call-" + id,
                                       .name = "bash",
                                       .arguments = R"({"command":"grep -rn compute src"})"}}},
      ToolResult{.turn_id = id,
                 .step = 1,
                 .call_id = "call-" + id,
                 .tool_name = "bash",
                 .content = {content::TextBlock{output}},
                 .details = {{"exitCode", 0}}},
      UsageRecorded{.turn_id = id,
                    .step = 1,
                    .model = "m",
                    .usage = {.input_tokens = 1200 + turn, .output_tokens = 80}},
      StepEnded{.turn_id = id, .step = 1, .stop_reason = "tool_use"},
      AssistantMessage{
          .turn_id = id,
          .step = 2,
          .content = {content::TextBlock{"Fixed: the off-by-one in compute() is gone."}}},
      TurnEnded{.turn_id = id}};
}

void BM_Append1KiB(benchmark::State& state) {
  ava::test::TempDir tmp;
  auto writer = LogWriter::create(tmp.path() / "b.jsonl.zst", start());
  std::vector<double> latencies_us;
  latencies_us.reserve(1 << 20);
  int i = 0;
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    auto seq = (*writer)->append(one_kib_event(i++));
    const auto end = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(seq);
    latencies_us.push_back(std::chrono::duration<double, std::micro>(end - begin).count());
  }
  std::ranges::sort(latencies_us);
  state.counters["p50_us"] = latencies_us[latencies_us.size() / 2];
  state.counters["p99_us"] = latencies_us[latencies_us.size() * 99 / 100];
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_Append1KiB)->MinTime(2.0);

// Two appending threads share writes (group commit).
void BM_Append1KiBTwoThreads(benchmark::State& state) {
  ava::test::TempDir tmp;
  auto writer = LogWriter::create(tmp.path() / "b.jsonl.zst", start());
  const auto per_thread = state.range(0);
  for (auto _ : state) {
    std::thread other([&] {
      for (int i = 0; i < per_thread; ++i)
        benchmark::DoNotOptimize((*writer)->append(one_kib_event(i)));
    });
    for (int i = 0; i < per_thread; ++i)
      benchmark::DoNotOptimize((*writer)->append(one_kib_event(i)));
    other.join();
  }
  state.SetItemsProcessed(state.iterations() * per_thread * 2);
}
BENCHMARK(BM_Append1KiBTwoThreads)->Arg(20000)->Unit(benchmark::kMillisecond);

void BM_CompressionRatio(benchmark::State& state) {
  for (auto _ : state) {
    ava::test::TempDir tmp;
    const auto path = tmp.path() / "b.jsonl.zst";
    auto writer = LogWriter::create(path, start());
    std::size_t raw = encode_line({.seq = 1, .body = start()}).size();
    Seq seq = 2;
    for (int turn = 0; turn < 1000; ++turn) {
      for (auto& body : conversation_turn(turn)) {
        raw += encode_line({.seq = seq++, .ts_ms = 1'796'210'516'123, .body = body}).size();
        (void)(*writer)->append(std::move(body));
      }
    }
    (void)(*writer)->close();
    state.counters["raw_bytes"] = static_cast<double>(raw);
    state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(path));
    state.counters["file_to_raw"] =
        static_cast<double>(std::filesystem::file_size(path)) / static_cast<double>(raw);
  }
}
BENCHMARK(BM_CompressionRatio)->Iterations(1)->Unit(benchmark::kMillisecond);

// Opening a 100k-event log: scan, verify, recover (nothing to repair here)
// and rebuild the model context.
void BM_OpenRecoverRebuild100k(benchmark::State& state) {
  ava::test::TempDir tmp;
  const auto path = tmp.path() / "b.jsonl.zst";
  {
    auto writer = LogWriter::create(path, start());
    std::vector<EventBody> batch;
    for (int turn = 0; (*writer)->last_seq() + batch.size() < 100'000; ++turn) {
      for (auto& body : conversation_turn(turn)) batch.push_back(std::move(body));
      if (batch.size() >= 1000) (void)(*writer)->append_batch(std::exchange(batch, {}));
    }
    if (!batch.empty()) (void)(*writer)->append_batch(std::move(batch));
  }
  std::size_t events = 0;
  const double faults_before = minor_faults();
  for (auto _ : state) {
    auto writer = LogWriter::open(path);
    auto history = (*writer)->take_history();
    events = history.size();
    auto context = rebuild_context(history);
    benchmark::DoNotOptimize(context);
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["page_faults"] =
      benchmark::Counter(minor_faults() - faults_before, benchmark::Counter::kAvgIterations);
  state.counters["file_mib"] = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);
}
BENCHMARK(BM_OpenRecoverRebuild100k)->Unit(benchmark::kMillisecond);

}  // namespace
