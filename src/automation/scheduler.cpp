#include "ava/automation/scheduler.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "ava/base/clock.hpp"

namespace ava::automation {
namespace {

namespace asio = boost::asio;

// How many past occurrences one pass walks to find the latest missed one
// (a minutely cron missed for two months); older ones are counted as one.
constexpr int max_walk = 100'000;

class SystemClock final : public Clock {
 public:
  std::int64_t now_ms() const override { return base::unix_ms_now(); }
};

}  // namespace

const Clock& system_clock() {
  static const SystemClock clock;
  return clock;
}

Result<std::shared_ptr<Scheduler>> Scheduler::create(Options options) {
  if (options.runner == nullptr || options.clock == nullptr) {
    return fail(ErrorCode::invalid_argument, "a scheduler needs a runner and a clock");
  }
  AVA_TRY(auto store, AutomationStore::open_file(options.store_file));
  return std::shared_ptr<Scheduler>(new Scheduler(std::move(options), std::move(store)));
}

Scheduler::Scheduler(Options options, AutomationStore store)
    : options_(std::move(options)),
      store_(std::move(store)),
      timer_(asio::make_strand(options_.executor)) {}

Result<void> Scheduler::start() {
  {
    std::lock_guard lock(mutex_);
    // Nothing claimed or started by an earlier process runs again.
    AVA_TRY(const int reconciled, store_.reconcile(options_.clock->now_ms()));
    if (reconciled > 0) {
      spdlog::info("automations: {} run(s) left unfinished by the last process closed", reconciled);
    }
    AVA_TRY_VOID(plan_all());
  }
  asio::post(timer_.get_executor(), [self = shared_from_this()] { self->loop(); });
  return {};
}

void Scheduler::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  wake();
}

void Scheduler::wake() {
  asio::post(timer_.get_executor(), [self = shared_from_this()] { self->timer_.cancel(); });
}

void Scheduler::loop() {
  const auto next = tick();
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
  }
  auto wait = options_.max_sleep;
  if (next) {
    const auto until = std::chrono::milliseconds(*next - options_.clock->now_ms());
    wait = std::clamp(until, std::chrono::milliseconds(0), options_.max_sleep);
  }
  timer_.expires_after(wait);
  timer_.async_wait(
      [self = shared_from_this()](const boost::system::error_code&) { self->loop(); });
}

Result<void> Scheduler::plan_all() {
  AVA_TRY(const auto automations, store_.list());
  AVA_TRY(const auto handled, store_.last_scheduled());
  std::map<std::string, std::int64_t> last(handled.begin(), handled.end());
  plans_.clear();
  due_.clear();
  for (const auto& automation : automations) {
    const auto it = last.find(automation.id);
    plan(automation, it == last.end() ? 0 : it->second);
  }
  return {};
}

void Scheduler::unplan(const std::string& id) {
  const auto it = plans_.find(id);
  if (it == plans_.end()) return;
  if (it->second.next_due) {
    const auto [first, last] = due_.equal_range(*it->second.next_due);
    for (auto at = first; at != last; ++at) {
      if (at->second == id) {
        due_.erase(at);
        break;
      }
    }
  }
  plans_.erase(it);
}

void Scheduler::plan(Automation automation, std::int64_t handled_ms) {
  const std::string id = automation.id;
  unplan(id);
  Plan plan{.automation = std::move(automation), .handled_ms = handled_ms};
  auto zone = TimeZone::load(plan.automation.time_zone);
  auto kind = parse_schedule_kind(plan.automation.schedule_kind);
  if (!zone || !kind) {
    spdlog::warn("automation {}: not scheduled: {}", plan.automation.name,
                 (!zone ? zone.error() : kind.error()).message);
    return;
  }
  auto schedule = parse_schedule(*kind, plan.automation.schedule, *zone);
  if (!schedule) {
    spdlog::warn("automation {}: not scheduled: {}", plan.automation.name,
                 schedule.error().message);
    return;
  }
  plan.zone = std::move(*zone);
  plan.schedule = std::move(*schedule);
  if (plan.automation.enabled) {
    // Runs before the automation's last change are not caught up (a paused
    // one resumed, a schedule edited); an interval counts from that change.
    const std::int64_t base = std::max(handled_ms, plan.automation.updated_ms);
    plan.next_due = next_after(plan.schedule, *plan.zone, base, plan.automation.updated_ms);
  }
  if (plan.next_due) due_.emplace(*plan.next_due, id);
  plans_.emplace(id, std::move(plan));
}

std::optional<std::int64_t> Scheduler::tick() {
  std::lock_guard lock(mutex_);
  if (stopped_) return std::nullopt;
  const std::int64_t now = options_.clock->now_ms();
  while (!due_.empty() && due_.begin()->first <= now) {
    const std::string id = due_.begin()->second;
    due_.erase(due_.begin());
    const auto it = plans_.find(id);
    if (it == plans_.end()) continue;
    Plan& plan = it->second;
    due_now(plan, now);
    if (plan.next_due) due_.emplace(*plan.next_due, id);
  }
  if (due_.empty()) return std::nullopt;
  return due_.begin()->first;
}

void Scheduler::due_now(Plan& plan, std::int64_t now) {
  const Automation& automation = plan.automation;
  const std::int64_t first = *plan.next_due;
  // The latest occurrence due by now; the ones before it were missed.
  std::int64_t latest = first;
  int missed = 0;
  for (int walked = 0; walked < max_walk; ++walked) {
    const auto next = next_after(plan.schedule, *plan.zone, latest, automation.updated_ms);
    if (!next || *next > now) break;
    latest = *next;
    ++missed;
  }
  const bool late = now - latest > options_.grace_ms;
  if (missed > 0) {
    (void)store_.record_skipped(
        automation.id, first, "schedule",
        fmt::format("missed: {} run(s) from {} came due while Ava was not running, the machine "
                    "slept or the clock jumped",
                    missed, plan.zone->format(first)),
        now);
  }
  if (!late) {
    launch(automation, latest, "schedule");
  } else if (automation.missed == Missed::run_once) {
    launch(automation, latest, "catch-up");
  } else {
    (void)store_.record_skipped(
        automation.id, latest, "schedule",
        fmt::format("missed: due at {}, Ava was not running (policy missed: skip)",
                    plan.zone->format(latest)),
        now);
    notify(automation, latest);
  }
  plan.handled_ms = latest;
  plan.next_due = next_after(plan.schedule, *plan.zone, latest, automation.updated_ms);
  (void)store_.prune(automation.id, automation.keep_runs);
}

void Scheduler::launch(const Automation& automation, std::int64_t scheduled_ms,
                       const std::string& trigger) {
  const std::int64_t now = options_.clock->now_ms();
  auto active = store_.active(automation.id);
  if (!active) {
    spdlog::error("automation {}: {}", automation.name, active.error().message);
    return;
  }
  const auto queued = std::ranges::count_if(
      *active, [](const Occurrence& o) { return o.state == OccurrenceState::claimed; });
  const auto running = static_cast<std::int64_t>(active->size()) - queued;
  if (!active->empty() && trigger != "manual") {
    std::string why;
    if (automation.overlap == Overlap::skip) {
      why = "skipped: the previous run was still running (overlap: skip)";
    } else if (automation.overlap == Overlap::queue && queued > 0) {
      why = "skipped: a run already waited for the running one (overlap: queue)";
    } else if (automation.overlap == Overlap::allow &&
               static_cast<std::int64_t>(active->size()) >= automation.max_running) {
      why = fmt::format("skipped: {} run(s) already running (overlap: allow, at most {})", running,
                        automation.max_running);
    }
    if (!why.empty()) {
      (void)store_.record_skipped(automation.id, scheduled_ms, trigger, why, now);
      notify(automation, scheduled_ms);
      return;
    }
  }
  auto claimed = store_.claim(automation.id, scheduled_ms, trigger, now);
  if (!claimed || !*claimed) return;  // claimed before: by this or another process
  if (automation.overlap == Overlap::queue && running > 0 && trigger != "manual") {
    return;  // waits; on_ended starts it
  }
  begin_claimed(automation, scheduled_ms);
}

void Scheduler::begin_claimed(const Automation& automation, std::int64_t scheduled_ms) {
  const std::int64_t now = options_.clock->now_ms();
  if (stopped_) return;  // stays claimed: the next start-up closes it as not started
  std::weak_ptr<Scheduler> weak = weak_from_this();
  auto started = options_.runner->start(
      automation, scheduled_ms, [weak, id = automation.id, scheduled_ms](RunOutcome outcome) {
        if (auto self = weak.lock()) self->on_ended(id, scheduled_ms, std::move(outcome));
      });
  if (!started) {
    (void)store_.mark_ended(automation.id, scheduled_ms, OccurrenceState::failed,
                            "the run did not start: " + started.error().message, now);
    notify(automation, scheduled_ms);
    return;
  }
  if (auto marked = store_.mark_started(automation.id, scheduled_ms, *started, now); !marked) {
    spdlog::error("automation {}: {}", automation.name, marked.error().message);
  }
}

void Scheduler::notify(const Automation& automation, std::int64_t scheduled_ms) {
  if (!options_.on_occurrence) return;
  auto history = store_.history(automation.id, 20);
  if (!history) return;
  for (const auto& occurrence : *history) {
    if (occurrence.scheduled_ms == scheduled_ms) options_.on_occurrence(automation, occurrence);
  }
}

void Scheduler::on_ended(std::string automation_id, std::int64_t scheduled_ms, RunOutcome outcome) {
  std::lock_guard lock(mutex_);
  (void)store_.mark_ended(automation_id, scheduled_ms, outcome.state, outcome.error,
                          options_.clock->now_ms());
  const auto it = plans_.find(automation_id);
  if (it == plans_.end()) return;
  notify(it->second.automation, scheduled_ms);
  // A queued run starts when the one before it ends.
  auto active = store_.active(automation_id);
  if (!active) return;
  const bool running = std::ranges::any_of(
      *active, [](const Occurrence& o) { return o.state == OccurrenceState::started; });
  for (const auto& occurrence : *active) {
    if (!running && occurrence.state == OccurrenceState::claimed) {
      begin_claimed(it->second.automation, occurrence.scheduled_ms);
      break;
    }
  }
}

void Scheduler::changed(const std::string& automation_id) {
  {
    std::lock_guard lock(mutex_);
    auto found = store_.find(automation_id);
    if (!found || !*found) {
      unplan(automation_id);
    } else {
      std::int64_t handled = 0;
      if (auto last = store_.last_scheduled()) {
        for (const auto& [id, ms] : *last) {
          if (id == (*found)->id) handled = ms;
        }
      }
      plan(std::move(**found), handled);
    }
  }
  wake();
}

Result<Occurrence> Scheduler::run_now(const std::string& id_or_name) {
  std::lock_guard lock(mutex_);
  if (stopped_) return fail(ErrorCode::unavailable, "Ava is shutting down");
  AVA_TRY(auto found, store_.find(id_or_name));
  if (!found) return fail(ErrorCode::not_found, "no automation " + id_or_name);
  std::int64_t at = options_.clock->now_ms();
  // A manual run is its own occurrence: a millisecond later if one is there.
  for (int tries = 0; tries < 1000; ++tries, ++at) {
    AVA_TRY(const bool claimed, store_.claim(found->id, at, "manual", at));
    if (!claimed) continue;
    begin_claimed(*found, at);
    AVA_TRY(auto history, store_.history(found->id, 50));
    for (auto& occurrence : history) {
      if (occurrence.scheduled_ms == at) return occurrence;
    }
    return fail(ErrorCode::internal, "the manual run's occurrence is gone");
  }
  return fail(ErrorCode::conflict, "too many manual runs at once");
}

std::optional<std::int64_t> Scheduler::next_due(const std::string& automation_id) const {
  std::lock_guard lock(mutex_);
  const auto it = plans_.find(automation_id);
  return it == plans_.end() ? std::nullopt : it->second.next_due;
}

}  // namespace ava::automation
