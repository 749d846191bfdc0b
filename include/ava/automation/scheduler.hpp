#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "ava/automation/schedule.hpp"
#include "ava/automation/store.hpp"

// The scheduler (docs/automations.md): claims each due occurrence in the
// store before anything starts, applies the missed-run and overlap
// policies, and asks a Runner (the server's, which makes each run a
// conversation) to start it. Start-up reconciles the store before anything
// is scheduled; stop() ends scheduling first, before a server closes its
// conversations.
namespace ava::automation {

// Unix milliseconds now; tests inject their own.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t now_ms() const = 0;
};
const Clock& system_clock();

struct RunOutcome {
  OccurrenceState state = OccurrenceState::finished;  // finished, failed or interrupted
  std::string error;
};

// What starts a run. start() returns the run's conversation id once its
// prompt is accepted; `ended` is called once, later and never from within
// start(), when the run's turn is over (or its time limit aborted it).
class Runner {
 public:
  virtual ~Runner() = default;
  virtual Result<std::string> start(const Automation& automation, std::int64_t scheduled_ms,
                                    std::function<void(RunOutcome)> ended) = 0;
};

class Scheduler : public std::enable_shared_from_this<Scheduler> {
 public:
  struct Options {
    boost::asio::any_io_executor executor;
    std::filesystem::path store_file;
    Runner* runner = nullptr;
    const Clock* clock = &system_clock();
    // A run due longer ago than this counts as missed (the backend was down,
    // the machine asleep, or the clock jumped).
    std::int64_t grace_ms = 2 * 60 * 1000;
    // The longest the loop sleeps: a clock jump is noticed within it.
    std::chrono::milliseconds max_sleep = std::chrono::seconds(30);
    // An occurrence ended (finished, failed, interrupted) or was skipped:
    // the server tells the UIs. Called with the scheduler's lock held.
    std::function<void(const Automation&, const Occurrence&)> on_occurrence;
  };

  static Result<std::shared_ptr<Scheduler>> create(Options options);

  // Reconciles the store (claimed → skipped, started → interrupted), plans
  // every automation, then runs the loop on the executor until stop().
  Result<void> start();
  // No new run starts after this; runs already started go on.
  void stop();

  // One pass at the clock's now: claims and starts what is due. Returns
  // the earliest next due time. The loop calls it; tests call it directly.
  std::optional<std::int64_t> tick();
  // Plans an automation again after it was added, changed or removed.
  void changed(const std::string& automation_id);
  // Claims and starts a run now (trigger "manual"), whatever the schedule.
  Result<Occurrence> run_now(const std::string& id_or_name);

  std::optional<std::int64_t> next_due(const std::string& automation_id) const;
  // The store the scheduler writes; the API reads and changes automations
  // through it (SQLite's own locking; this object's mutex orders writes).
  AutomationStore& store() { return store_; }
  std::mutex& mutex() { return mutex_; }

 private:
  struct Plan {
    Automation automation;
    Schedule schedule;
    std::optional<TimeZone> zone;
    std::optional<std::int64_t> next_due;
    std::int64_t handled_ms = 0;  // the last scheduled time handled
  };

  Scheduler(Options options, AutomationStore store);
  Result<void> plan_all();                                    // mutex_ held
  void plan(Automation automation, std::int64_t handled_ms);  // mutex_ held
  void unplan(const std::string& id);                         // mutex_ held
  void due_now(Plan& plan, std::int64_t now);                 // mutex_ held
  void launch(const Automation& automation, std::int64_t scheduled_ms, const std::string& trigger);
  void begin_claimed(const Automation& automation, std::int64_t scheduled_ms);  // mutex_ held
  void on_ended(std::string automation_id, std::int64_t scheduled_ms, RunOutcome outcome);
  void notify(const Automation& automation, std::int64_t scheduled_ms);  // mutex_ held
  void loop();
  void wake();

  Options options_;
  AutomationStore store_;
  mutable std::mutex mutex_;
  std::map<std::string, Plan> plans_;
  std::multimap<std::int64_t, std::string> due_;  // next due time → automation id
  bool stopped_ = false;
  boost::asio::steady_timer timer_;
};

}  // namespace ava::automation
