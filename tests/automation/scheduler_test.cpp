// The scheduler with an injected clock and a runner that records starts:
// exactly-once claims (restarts, a second scheduler on the same file, clock
// jumps both ways), missed-run and overlap policies, start-up reconciliation
// after a crash between claim and start and between start and finish.
#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>

#include "ava/automation/scheduler.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
using namespace ava::automation;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t minute = 60'000;
constexpr std::int64_t t0 = 1'800'000'000'000;  // 2027-01-15 08:00 UTC, a whole minute

class ManualClock final : public Clock {
 public:
  std::int64_t now = t0;
  std::int64_t now_ms() const override { return now; }
};

// Starts nothing; remembers each run, ends one when the test says so.
class RecordingRunner final : public Runner {
 public:
  struct Run {
    std::string automation;
    std::int64_t scheduled_ms;
    std::function<void(RunOutcome)> ended;
  };
  std::vector<Run> runs;
  bool fail_next = false;
  Result<std::string> start(const Automation& automation, std::int64_t scheduled_ms,
                            std::function<void(RunOutcome)> ended) override {
    if (fail_next) {
      fail_next = false;
      return fail(ErrorCode::unavailable, "no provider");
    }
    runs.push_back({automation.name, scheduled_ms, std::move(ended)});
    return "conversation-" + std::to_string(runs.size());
  }
};

struct Fixture {
  test::TempDir dir;
  fs::path file = dir.path() / "automations.sqlite3";
  fs::path project = dir.path() / "project";
  ManualClock clock;
  RecordingRunner runner;
  boost::asio::io_context io;

  Fixture() { fs::create_directories(project); }

  std::shared_ptr<Scheduler> scheduler(RecordingRunner& with) {
    auto made = Scheduler::create(
        {.executor = io.get_executor(), .store_file = file, .runner = &with, .clock = &clock});
    REQUIRE(made);
    REQUIRE((*made)->start());
    return *made;
  }
  std::shared_ptr<Scheduler> scheduler() { return scheduler(runner); }

  Automation add(Scheduler& s, std::string name, std::string kind, std::string schedule,
                 Overlap overlap = Overlap::skip, Missed missed = Missed::skip) {
    Automation a{.name = std::move(name),
                 .project = project.string(),
                 .prompt = "check the build",
                 .schedule_kind = std::move(kind),
                 .schedule = std::move(schedule),
                 .overlap = overlap,
                 .missed = missed};
    auto added = s.store().add(a, clock.now);
    REQUIRE(added);
    s.changed(added->id);
    return *added;
  }

  std::vector<Occurrence> history(Scheduler& s, const std::string& id) {
    auto found = s.store().history(id, 100);
    REQUIRE(found);
    return *found;
  }
};

std::vector<std::string> states(const std::vector<Occurrence>& history) {
  std::vector<std::string> out;
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    out.push_back(std::string(to_string(it->state)) + "/" + it->trigger);
  }
  return out;
}

}  // namespace

TEST_CASE("an every-minute automation runs each minute once", "[automation][scheduler]") {
  Fixture f;
  auto s = f.scheduler();
  const auto a = f.add(*s, "build", "every", "1m");
  CHECK(s->next_due(a.id) == t0 + minute);
  CHECK(s->tick() == t0 + minute);  // nothing yet
  CHECK(f.runner.runs.empty());
  f.clock.now = t0 + minute;
  CHECK(s->tick() == t0 + 2 * minute);
  REQUIRE(f.runner.runs.size() == 1);
  CHECK(f.runner.runs[0].scheduled_ms == t0 + minute);
  s->tick();  // the same time again: nothing more
  CHECK(f.runner.runs.size() == 1);
  f.runner.runs[0].ended({.state = OccurrenceState::finished});
  const auto h = f.history(*s, a.id);
  REQUIRE(h.size() == 1);
  CHECK(h[0].state == OccurrenceState::finished);
  CHECK(h[0].conversation_id == "conversation-1");
}

TEST_CASE("the newest occurrence of each automation, in one query", "[automation][store]") {
  Fixture f;
  auto s = f.scheduler();
  const auto often = f.add(*s, "often", "every", "1m");
  const auto never = f.add(*s, "never", "cron", "0 0 1 1 *");
  for (int i = 1; i <= 3; ++i) {
    f.clock.now = t0 + i * minute;
    s->tick();
    f.runner.runs.back().ended({.state = OccurrenceState::finished});
  }
  f.clock.now = t0 + 4 * minute;
  s->tick();  // the fourth still runs
  const auto latest = s->store().latest_occurrences();
  REQUIRE(latest);
  CHECK(latest->size() == 1);
  REQUIRE(latest->contains(often.id));
  CHECK(latest->at(often.id).scheduled_ms == t0 + 4 * minute);
  CHECK(latest->at(often.id).state == OccurrenceState::started);
  CHECK(latest->at(often.id).conversation_id == "conversation-4");
  CHECK_FALSE(latest->contains(never.id));
}

TEST_CASE("a restart, a second scheduler and a clock jumping back start nothing twice",
          "[automation][scheduler]") {
  Fixture f;
  RecordingRunner other;
  auto first = f.scheduler();
  const auto a = f.add(*first, "build", "every", "1m");
  f.clock.now = t0 + minute;
  // Another scheduler on the same file (another process would be stopped by
  // the ownership lock; the claim holds anyway).
  auto second = f.scheduler(other);
  first->tick();
  second->tick();
  CHECK(f.runner.runs.size() + other.runs.size() == 1);
  // The clock goes back five minutes, then forward again: no second start.
  f.clock.now = t0 - 4 * minute;
  first->tick();
  f.clock.now = t0 + minute + 30'000;
  first->tick();
  second->tick();
  CHECK(f.runner.runs.size() + other.runs.size() == 1);
  // A new scheduler (a restart) plans from what the store says was handled.
  auto third = f.scheduler(other);
  CHECK(third->next_due(a.id) == t0 + 2 * minute);
}

TEST_CASE("missed runs: skip records them, run-once runs the latest once",
          "[automation][scheduler]") {
  Fixture f;
  auto s = f.scheduler();
  const auto skipping = f.add(*s, "skipping", "every", "10m");
  const auto catching = f.add(*s, "catching", "every", "10m", Overlap::skip, Missed::run_once);
  // Down for an hour: six runs of each came due.
  f.clock.now = t0 + 65 * minute;
  s->tick();
  REQUIRE(f.runner.runs.size() == 1);
  CHECK(f.runner.runs[0].automation == "catching");
  CHECK(f.runner.runs[0].scheduled_ms == t0 + 60 * minute);
  CHECK(states(f.history(*s, skipping.id)) ==
        std::vector<std::string>{"skipped/schedule", "skipped/schedule"});
  CHECK(f.history(*s, skipping.id)[0].error.find("policy missed: skip") != std::string::npos);
  CHECK(f.history(*s, skipping.id)[1].error.find("missed: 5 run(s)") != std::string::npos);
  CHECK(states(f.history(*s, catching.id)) ==
        std::vector<std::string>{"skipped/schedule", "started/catch-up"});
  // Back on schedule afterwards.
  CHECK(s->next_due(skipping.id) == t0 + 70 * minute);
  // A clock jump forward is the same: missed, by policy.
  f.clock.now = t0 + 305 * minute;
  s->tick();
  CHECK(f.history(*s, skipping.id).front().state == OccurrenceState::skipped);
}

TEST_CASE("overlap: skip, queue (one waits) and allow (up to a cap)", "[automation][scheduler]") {
  Fixture f;
  auto s = f.scheduler();
  const auto skip = f.add(*s, "skip", "every", "1m", Overlap::skip);
  const auto queue = f.add(*s, "queue", "every", "1m", Overlap::queue);
  auto allow_def = f.add(*s, "allow", "every", "1m", Overlap::allow);
  allow_def.max_running = 2;
  REQUIRE(s->store().update(allow_def, t0));
  s->changed(allow_def.id);
  for (int i = 1; i <= 3; ++i) {
    f.clock.now = t0 + i * minute;
    s->tick();
  }
  auto count = [&](const std::string& name) {
    return std::ranges::count_if(f.runner.runs,
                                 [&](const auto& r) { return r.automation == name; });
  };
  CHECK(count("skip") == 1);
  CHECK(count("queue") == 1);
  CHECK(count("allow") == 2);
  CHECK(states(f.history(*s, skip.id)) ==
        std::vector<std::string>{"started/schedule", "skipped/schedule", "skipped/schedule"});
  CHECK(states(f.history(*s, queue.id)) ==
        std::vector<std::string>{"started/schedule", "claimed/schedule", "skipped/schedule"});
  // The queued run starts when the running one ends (posted as the server does).
  const auto queued = std::ranges::find(f.runner.runs, "queue", &RecordingRunner::Run::automation);
  REQUIRE(queued != f.runner.runs.end());
  auto ended = queued->ended;  // the runner's list grows as the queued run starts
  ended({.state = OccurrenceState::finished});
  CHECK(count("queue") == 2);
  CHECK(states(f.history(*s, queue.id)) ==
        std::vector<std::string>{"finished/schedule", "started/schedule", "skipped/schedule"});
}

TEST_CASE("a crash between claim and start, or start and finish, is closed on start-up",
          "[automation][scheduler]") {
  Fixture f;
  std::string id;
  {
    auto s = f.scheduler();
    id = f.add(*s, "build", "every", "1m", Overlap::allow).id;
    f.clock.now = t0 + minute;
    s->tick();                                                            // started: conversation-1
    REQUIRE(s->store().claim(id, t0 + 90'000, "schedule", f.clock.now));  // claimed, never started
    // SIGKILL: nothing more is written.
  }
  RecordingRunner after;
  auto s = f.scheduler(after);
  const auto h = f.history(*s, id);
  REQUIRE(h.size() == 2);
  CHECK(h[0].state == OccurrenceState::skipped);  // claimed, never started
  CHECK(h[0].error.find("not started") != std::string::npos);
  CHECK(h[1].state == OccurrenceState::interrupted);  // started, never confirmed
  CHECK(h[1].conversation_id == "conversation-1");
  s->tick();
  CHECK(after.runs.empty());  // neither runs again
  // The old run's end, arriving late, changes nothing now.
  f.runner.runs[0].ended({.state = OccurrenceState::finished});
  CHECK(f.history(*s, id)[1].state == OccurrenceState::interrupted);
}

TEST_CASE("run-now, a run that cannot start, paused and removed automations",
          "[automation][scheduler]") {
  Fixture f;
  auto s = f.scheduler();
  auto a = f.add(*s, "build", "cron", "0 9 * * *");
  auto manual = s->run_now("build");
  REQUIRE(manual);
  CHECK(manual->trigger == "manual");
  CHECK(manual->state == OccurrenceState::started);
  f.runner.fail_next = true;
  auto failed = s->run_now(a.id);
  REQUIRE(failed);
  CHECK(failed->state == OccurrenceState::failed);
  CHECK(failed->error.find("no provider") != std::string::npos);
  CHECK_FALSE(s->run_now("nothing"));
  // Paused: not scheduled; resumed: from the resume on, nothing caught up.
  a.enabled = false;
  REQUIRE(s->store().update(a, f.clock.now));
  s->changed(a.id);
  CHECK_FALSE(s->next_due(a.id));
  f.clock.now += 3 * 24 * 60 * minute;
  a.enabled = true;
  auto resumed = s->store().update(a, f.clock.now);
  REQUIRE(resumed);
  s->changed(a.id);
  CHECK(s->next_due(a.id) > f.clock.now);
  s->tick();
  CHECK(f.runner.runs.size() == 1);  // only the manual run
  REQUIRE(s->store().remove(a.id));
  s->changed(a.id);
  CHECK_FALSE(s->next_due(a.id));
}

TEST_CASE("an automation's fields are checked", "[automation][store]") {
  Fixture f;
  auto s = f.scheduler();
  Automation good{.name = "ok",
                  .project = f.project.string(),
                  .prompt = "hi",
                  .schedule_kind = "every",
                  .schedule = "1h"};
  CHECK(check_automation(good));
  auto bad = good;
  bad.name = "../x";
  CHECK_FALSE(check_automation(bad));
  bad = good;
  bad.project = "relative";
  CHECK_FALSE(check_automation(bad));
  bad = good;
  bad.time_zone = "Nowhere/Land";
  CHECK_FALSE(check_automation(bad));
  bad = good;
  bad.schedule = "5";
  CHECK(check_automation(bad).error().message.find("schedule") == 0);
  bad = good;
  bad.permission_mode = "yolo";
  CHECK_FALSE(check_automation(bad));
  REQUIRE(s->store().add(good, t0));
  CHECK(s->store().add(good, t0).error().code == ErrorCode::already_exists);
}
