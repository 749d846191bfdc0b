#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

// When an automation runs (docs/automations.md): a cron expression, a fixed
// interval, or one time, evaluated in the automation's IANA time zone.
//
// DST, the documented choice: a local time that a spring-forward skips runs
// once, at the first instant after the gap (02:30 in a 02:00-03:00 gap runs
// at 03:00); a local time that a fall-back repeats runs once, at its first
// occurrence.
namespace ava::automation {

// An IANA zone ("Europe/Berlin", "UTC"), read from the system's tzdata.
class TimeZone {
 public:
  static Result<TimeZone> load(std::string_view name);
  const std::string& name() const { return name_; }
  // "2026-03-29 03:00 CEST"
  std::string format(std::int64_t unix_ms) const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  TimeZone(std::string name, std::shared_ptr<const Impl> impl)
      : name_(std::move(name)), impl_(std::move(impl)) {}
  std::string name_;
  std::shared_ptr<const Impl> impl_;
};

// Five fields: minute hour day-of-month month day-of-week, each a list of
// `*`, `N`, `N-M` and `/STEP` forms; month and weekday names (jan, mon);
// weekday 0 or 7 is Sunday. When both day fields are restricted, a day that
// matches either runs (cron's rule). Aliases: @yearly @annually @monthly
// @weekly @daily @midnight @hourly.
struct Cron {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days;     // 1-31
  std::bitset<13> months;   // 1-12
  std::bitset<7> weekdays;  // 0 = Sunday
  bool any_day = true;      // day of month was `*`
  bool any_weekday = true;  // day of week was `*`
};
Result<Cron> parse_cron(std::string_view text);

enum class ScheduleKind { cron, every, at };
std::string_view to_string(ScheduleKind kind);
Result<ScheduleKind> parse_schedule_kind(std::string_view text);

struct Schedule {
  ScheduleKind kind = ScheduleKind::cron;
  std::string text;  // as written: "0 9 * * mon-fri", "10m", "2026-12-24 18:00"
  Cron cron;
  std::int64_t every_ms = 0;  // every: from the automation's anchor
  std::int64_t at_ms = 0;     // at: the one time
};

// Intervals: N followed by s, m, h or d ("90s", "10m", "2h", "1d"); at
// least one second. Times: "YYYY-MM-DD HH:MM[:SS]" (or with a T) in `zone`,
// or with a Z or an offset ("+01:00").
Result<Schedule> parse_schedule(ScheduleKind kind, std::string_view text, const TimeZone& zone);

// The first run strictly after `after_ms`; nullopt when there is none (a
// one-time schedule already past, a cron that no date satisfies within
// eight years). `anchor_ms` is where an interval starts counting.
std::optional<std::int64_t> next_after(const Schedule& schedule, const TimeZone& zone,
                                       std::int64_t after_ms, std::int64_t anchor_ms);

// The next `count` runs after `after_ms`, for the forms' cron helper.
std::vector<std::int64_t> next_runs(const Schedule& schedule, const TimeZone& zone,
                                    std::int64_t after_ms, std::int64_t anchor_ms, int count);

}  // namespace ava::automation
