// The analytics index over a corpus of 10,000 session logs holding 1,000,000
// events (100 per log: 9 turns of a tool call, its result, usage and the
// lifecycle events), written once under $TMPDIR and reused by every
// benchmark of the run (AVA_BENCH_CORPUS=DIR keeps it between runs).
//   build/release/bench/analytics/ava_analytics_bench --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "ava/analytics/index.hpp"
#include "ava/session/log_writer.hpp"

namespace {

using namespace ava;
using namespace ava::session;
namespace fs = std::filesystem;

constexpr int logs = 10'000;
constexpr int turns_per_log = 9;  // 1 + 9 * 11 = 100 events per log

std::vector<EventBody> turn(const std::string& id, int n) {
  const std::string model = n % 3 == 0 ? "claude-sonnet-4-5" : "gpt-5";
  const std::string call = "call-" + id;
  return {TurnStarted{.turn_id = id},
          StepStarted{.turn_id = id, .step = 1, .model = model},
          AssistantMessage{
              .turn_id = id,
              .step = 1,
              .content = {content::ToolCallBlock{.id = call,
                                                 .name = n % 4 == 0 ? "edit" : "bash",
                                                 .arguments = R"({"command":"make test"})"}}},
          UsageRecorded{
              .turn_id = id,
              .step = 1,
              .model = model,
              .usage = {.input_tokens = 1200 + n, .output_tokens = 40, .cache_read_tokens = 900},
              .first_token_ms = 300 + n % 200,
              .duration_ms = 900},
          ToolResult{.turn_id = id,
                     .step = 1,
                     .call_id = call,
                     .tool_name = n % 4 == 0 ? "edit" : "bash",
                     .status = n % 7 == 0 ? ToolStatus::error : ToolStatus::ok,
                     .content = {content::TextBlock{"ok: 12 tests passed"}}},
          StepEnded{.turn_id = id, .step = 1},
          StepStarted{.turn_id = id, .step = 2, .model = model},
          AssistantMessage{.turn_id = id, .step = 2, .content = {content::TextBlock{"Done."}}},
          UsageRecorded{.turn_id = id,
                        .step = 2,
                        .model = model,
                        .usage = {.input_tokens = 1400 + n, .output_tokens = 12},
                        .first_token_ms = 250},
          StepEnded{.turn_id = id, .step = 2},
          TurnEnded{.turn_id = id}};
}

struct Corpus {
  fs::path root;
  fs::path sessions;
  fs::path index_file;
  int next_turn = 0;

  Corpus() {
    const char* kept = std::getenv("AVA_BENCH_CORPUS");
    root = kept ? fs::path(kept) : fs::temp_directory_path() / "ava-analytics-bench";
    sessions = root / "sessions";
    index_file = root / "analytics.sqlite3";
    std::error_code ec;
    if (fs::exists(sessions / fmt::format("s{:05}.jsonl.zst", logs - 1), ec)) return;
    fs::remove_all(root, ec);
    fs::create_directories(sessions);
    for (int i = 0; i < logs; ++i) {
      const std::string id = fmt::format("s{:05}", i);
      auto writer =
          LogWriter::create(sessions / (id + ".jsonl.zst"),
                            SessionStarted{.session_id = id,
                                           .provider = i % 3 == 0 ? "anthropic" : "openai",
                                           .model = "gpt-5",
                                           .cwd = fmt::format("/work/project-{}", i % 50),
                                           .version = "bench"});
      if (!writer) std::abort();
      std::vector<EventBody> events;
      for (int t = 0; t < turns_per_log; ++t) {
        for (auto& event : turn(fmt::format("{}-t{}", id, t), i + t))
          events.push_back(std::move(event));
      }
      if (!(*writer)->append_batch(std::move(events))) std::abort();
    }
  }
};

Corpus& corpus() {
  static Corpus instance;
  return instance;
}

analytics::Index open_index() {
  auto index = analytics::Index::open_file(corpus().index_file, corpus().sessions);
  if (!index) std::abort();
  return std::move(*index);
}

// One more turn (11 events) at the end of `log`, as a running agent adds it.
void append_turn(const fs::path& log) {
  auto writer = LogWriter::open(log);
  if (!writer) std::abort();
  if (!(*writer)->append_batch(turn(fmt::format("extra-{}", corpus().next_turn++), 1)))
    std::abort();
}

// Drops every row and reads all 10,000 logs again.
void BM_Rebuild(benchmark::State& state) {
  auto index = open_index();
  int events = 0;
  for (auto _ : state) {
    auto report = index.rebuild();
    if (!report) state.SkipWithError(report.error().message.c_str());
    events = report ? report->events_indexed : 0;
  }
  state.counters["events"] = events;
  state.counters["events_per_s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Rebuild)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

// One turn (11 events) appended to one log, then that log's new events
// indexed: what a turn's end costs the index (the append is not timed).
void BM_UpdateOneTurn(benchmark::State& state) {
  auto index = open_index();
  if (!index.update()) std::abort();
  const fs::path log = corpus().sessions / "s00042.jsonl.zst";
  for (auto _ : state) {
    state.PauseTiming();
    append_turn(log);
    state.ResumeTiming();
    auto indexed = index.update_log(log);
    if (!indexed || *indexed != 11) state.SkipWithError("the turn was not indexed");
  }
}
BENCHMARK(BM_UpdateOneTurn)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The same turn found by a whole update(): listing the 10,000 logs and
// comparing sizes dominates.
void BM_UpdateScanAfterOneTurn(benchmark::State& state) {
  auto index = open_index();
  if (!index.update()) std::abort();
  const fs::path log = corpus().sessions / "s00043.jsonl.zst";
  for (auto _ : state) {
    state.PauseTiming();
    append_turn(log);
    state.ResumeTiming();
    auto report = index.update();
    if (!report || report->events_indexed != 11) state.SkipWithError("the turn was not indexed");
  }
}
BENCHMARK(BM_UpdateScanAfterOneTurn)->Unit(benchmark::kMillisecond)->UseRealTime();

// A year of daily buckets for the page: the summary over every row.
void BM_SummaryAll(benchmark::State& state) {
  auto index = open_index();
  if (!index.update()) std::abort();
  for (auto _ : state) {
    auto summary = index.summary({});
    if (!summary) state.SkipWithError(summary.error().message.c_str());
    benchmark::DoNotOptimize(summary);
  }
}
BENCHMARK(BM_SummaryAll)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
