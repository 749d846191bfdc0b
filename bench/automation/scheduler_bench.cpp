// The scheduler's costs (issue 23's targets, docs/performance.md): the next
// due time of one schedule, a wake-up with 10,000 automations planned and
// nothing due, one with a run due, and planning 10,000 at start-up.
#include <benchmark/benchmark.h>

#include <boost/asio/io_context.hpp>

#include "ava/automation/scheduler.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
using namespace ava::automation;

namespace {

constexpr std::int64_t t0 = 1'800'000'000'000;

class ManualClock final : public Clock {
 public:
  std::int64_t now = t0;
  std::int64_t now_ms() const override { return now; }
};

class NullRunner final : public Runner {
 public:
  Result<std::string> start(const Automation&, std::int64_t,
                            std::function<void(RunOutcome)>) override {
    return std::string("c");
  }
};

void BM_NextDueCron(benchmark::State& state) {
  const auto zone = *TimeZone::load("Europe/Berlin");
  const auto schedule = *parse_schedule(ScheduleKind::cron, "*/15 9-17 * * mon-fri", zone);
  std::int64_t after = t0;
  for (auto _ : state) {
    after = *next_after(schedule, zone, after, 0);
    benchmark::DoNotOptimize(after);
  }
}
BENCHMARK(BM_NextDueCron);

void BM_NextDueCronLeapDay(benchmark::State& state) {
  const auto zone = *TimeZone::load("America/New_York");
  const auto schedule = *parse_schedule(ScheduleKind::cron, "0 12 29 2 *", zone);
  for (auto _ : state) benchmark::DoNotOptimize(next_after(schedule, zone, t0, 0));
}
BENCHMARK(BM_NextDueCronLeapDay);

struct Planned {
  test::TempDir dir;
  ManualClock clock;
  NullRunner runner;
  boost::asio::io_context io;
  std::shared_ptr<Scheduler> scheduler;

  // `distinct`: every automation has its own weekly minute (i < 10,080), so
  // a wake-up has exactly one run due; otherwise hourly and interval
  // schedules in two zones, many due at once.
  explicit Planned(int count, bool distinct = false) {
    std::filesystem::create_directories(dir.path() / "p");
    auto made = Scheduler::create({.executor = io.get_executor(),
                                   .store_file = dir.path() / "automations.sqlite3",
                                   .runner = &runner,
                                   .clock = &clock});
    scheduler = *made;
    for (int i = 0; i < count; ++i) {
      const std::string weekly = std::to_string(i % 60) + " " + std::to_string(i / 60 % 24) +
                                 " * * " + std::to_string(i / 1440 % 7);
      Automation a{.name = "a" + std::to_string(i),
                   .project = (dir.path() / "p").string(),
                   .prompt = "check",
                   .schedule_kind = distinct || i % 2 == 0 ? "cron" : "every",
                   .schedule = distinct     ? weekly
                               : i % 2 == 0 ? std::to_string(i % 60) + " * * * *"
                                            : std::to_string(60 + i % 600) + "m",
                   .time_zone = i % 3 == 0 ? "Europe/Berlin" : "UTC"};
      (void)scheduler->store().add(a, t0);
    }
  }
};

void BM_PlanAtStartup(benchmark::State& state) {
  Planned planned(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto started = planned.scheduler->start();
    benchmark::DoNotOptimize(started);
  }
}
BENCHMARK(BM_PlanAtStartup)->Arg(10'000)->Unit(benchmark::kMillisecond);

void BM_WakeNothingDue(benchmark::State& state) {
  Planned planned(static_cast<int>(state.range(0)));
  (void)planned.scheduler->start();
  for (auto _ : state) benchmark::DoNotOptimize(planned.scheduler->tick());
}
BENCHMARK(BM_WakeNothingDue)->Arg(10'000);

// Each wake-up has one run due: checked for overlap, claimed in the store,
// started, marked started, pruned, replanned.
void BM_WakeOneDue(benchmark::State& state) {
  Planned planned(static_cast<int>(state.range(0)), true);
  (void)planned.scheduler->start();
  for (auto _ : state) {
    state.PauseTiming();
    const auto next = planned.scheduler->tick();
    planned.clock.now = *next;
    state.ResumeTiming();
    benchmark::DoNotOptimize(planned.scheduler->tick());
  }
}
BENCHMARK(BM_WakeOneDue)->Arg(10'000)->Iterations(2000)->Unit(benchmark::kMicrosecond);

// The hour's first minute of the mixed set: about 80 runs due at once.
void BM_WakeBurst(benchmark::State& state) {
  Planned planned(static_cast<int>(state.range(0)));
  (void)planned.scheduler->start();
  for (auto _ : state) {
    state.PauseTiming();
    const auto next = planned.scheduler->tick();
    planned.clock.now = *next;
    state.ResumeTiming();
    benchmark::DoNotOptimize(planned.scheduler->tick());
  }
}
BENCHMARK(BM_WakeBurst)->Arg(10'000)->Iterations(200)->Unit(benchmark::kMillisecond);

}  // namespace
