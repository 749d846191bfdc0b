// Schedules on Abseil's time zones (cctz over the system's tzdata): g++ 12's
// library has no std::chrono time zone database.
#include "ava/automation/schedule.hpp"

#include <algorithm>
#include <charconv>
#include <span>

#include <absl/time/civil_time.h>
#include <absl/time/time.h>
#include <fmt/format.h>

#include "ava/base/text.hpp"

namespace ava::automation {

struct TimeZone::Impl {
  absl::TimeZone zone;
};

namespace {

constexpr int search_years = 8;  // Feb 29 on a Monday comes back within 28; 8 covers leap days
constexpr std::string_view month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                            "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::string_view day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

std::optional<int> number(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A value of a field: a number, or a name where the field has names.
std::optional<int> field_value(std::string_view text, std::span<const std::string_view> names,
                               int first_name) {
  if (auto value = number(text)) return value;
  const std::string lower = base::ascii_lower(text);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (lower == names[i]) return first_name + static_cast<int>(i);
  }
  return std::nullopt;
}

struct FieldSpec {
  const char* name;
  int low;
  int high;
  std::span<const std::string_view> names;
  int first_name = 0;
};

// One field into `bits` (indexed by value); `star` tells whether it was `*`.
template <std::size_t N>
Result<void> parse_field(std::string_view text, const FieldSpec& spec, std::bitset<N>& bits,
                         bool& star) {
  star = text == "*";
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::invalid_argument, fmt::format("cron {} \"{}\": {} ({}-{})", spec.name,
                                                         text, why, spec.low, spec.high));
  };
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    at = comma + 1;
    if (item.empty()) return bad("an empty list item");
    std::string_view range = item;
    int step = 1;
    if (const auto slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      const auto parsed = number(item.substr(slash + 1));
      if (!parsed || *parsed < 1) return bad("a step is a number of at least 1");
      step = *parsed;
    }
    int low = spec.low;
    int high = spec.high;
    if (range != "*") {
      const auto dash = range.find('-');
      const auto first = field_value(range.substr(0, dash), spec.names, spec.first_name);
      if (!first) return bad("not a number or a name");
      low = *first;
      if (dash != std::string_view::npos) {
        const auto last = field_value(range.substr(dash + 1), spec.names, spec.first_name);
        if (!last) return bad("not a number or a name");
        high = *last;
      } else if (item.find('/') == std::string_view::npos) {
        high = low;  // "5" alone; "5/10" runs from 5 to the end
      }
    }
    if (low < spec.low || high > spec.high || low > high) return bad("out of range");
    for (int value = low; value <= high; value += step) bits.set(static_cast<std::size_t>(value));
    if (comma == text.size()) break;
  }
  return {};
}

std::string_view alias_of(std::string_view text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return {};
}

int weekday_of(absl::CivilDay day) {
  switch (absl::GetWeekday(day)) {
    case absl::Weekday::sunday: return 0;
    case absl::Weekday::monday: return 1;
    case absl::Weekday::tuesday: return 2;
    case absl::Weekday::wednesday: return 3;
    case absl::Weekday::thursday: return 4;
    case absl::Weekday::friday: return 5;
    case absl::Weekday::saturday: return 6;
  }
  return 0;
}

bool day_matches(const Cron& cron, absl::CivilDay day) {
  const bool by_date = cron.days.test(static_cast<std::size_t>(day.day()));
  const bool by_weekday = cron.weekdays.test(static_cast<std::size_t>(weekday_of(day)));
  if (cron.any_day && cron.any_weekday) return true;
  if (cron.any_day) return by_weekday;
  if (cron.any_weekday) return by_date;
  return by_date || by_weekday;  // both restricted: either
}

// A local time as an instant, by the DST rule in schedule.hpp.
std::int64_t instant_of(const absl::TimeZone& zone, absl::CivilMinute minute) {
  const auto info = zone.At(absl::CivilSecond(minute));
  const absl::Time time = info.kind == absl::TimeZone::TimeInfo::SKIPPED ? info.trans : info.pre;
  return absl::ToUnixMillis(time);
}

std::optional<std::int64_t> next_cron(const Cron& cron, const absl::TimeZone& zone,
                                      std::int64_t after_ms) {
  const absl::CivilMinute start = absl::ToCivilMinute(absl::FromUnixMillis(after_ms), zone) + 1;
  const absl::CivilYear last_year = absl::CivilYear(start) + search_years;
  absl::CivilMinute at = start;
  while (absl::CivilYear(at) <= last_year) {
    if (!cron.months.test(static_cast<std::size_t>(at.month()))) {
      at = absl::CivilMinute(absl::CivilMonth(at) + 1);
      continue;
    }
    if (!day_matches(cron, absl::CivilDay(at))) {
      at = absl::CivilMinute(absl::CivilDay(at) + 1);
      continue;
    }
    if (!cron.hours.test(static_cast<std::size_t>(at.hour()))) {
      at = absl::CivilMinute(absl::CivilHour(at) + 1);
      continue;
    }
    if (!cron.minutes.test(static_cast<std::size_t>(at.minute()))) {
      at += 1;
      continue;
    }
    // A repeated hour's second pass maps to instants already past: go on.
    if (const std::int64_t when = instant_of(zone, at); when > after_ms) return when;
    at += 1;
  }
  return std::nullopt;
}

Result<std::int64_t> parse_interval(std::string_view text) {
  if (text.size() < 2)
    return fail(ErrorCode::invalid_argument, "an interval is N and s, m, h or d");
  const auto count = number(text.substr(0, text.size() - 1));
  std::int64_t unit = 0;
  switch (text.back()) {
    case 's': unit = 1000; break;
    case 'm': unit = 60'000; break;
    case 'h': unit = 3'600'000; break;
    case 'd': unit = 86'400'000; break;
    default: break;
  }
  if (!count || *count < 1 || unit == 0) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("interval \"{}\": N followed by s, m, h or d, e.g. 10m", text));
  }
  return *count * unit;
}

// "YYYY-MM-DD HH:MM[:SS]" with an optional Z or +HH:MM, else local in zone.
Result<std::int64_t> parse_time(std::string_view text, const absl::TimeZone& zone) {
  auto bad = [&] {
    return fail(ErrorCode::invalid_argument,
                fmt::format("time \"{}\": YYYY-MM-DD HH:MM[:SS], local to the time zone or with "
                            "Z or an offset such as +01:00",
                            text));
  };
  if (text.size() < 16 || text[4] != '-' || text[7] != '-' ||
      (text[10] != ' ' && text[10] != 'T') || text[13] != ':') {
    return bad();
  }
  const auto year = number(text.substr(0, 4));
  const auto month = number(text.substr(5, 2));
  const auto day = number(text.substr(8, 2));
  const auto hour = number(text.substr(11, 2));
  const auto minute = number(text.substr(14, 2));
  std::string_view rest = text.substr(16);
  int second = 0;
  if (rest.starts_with(':')) {
    const auto parsed = number(rest.substr(1, 2));
    if (!parsed) return bad();
    second = *parsed;
    rest = rest.substr(3);
  }
  if (!year || !month || !day || !hour || !minute || *month < 1 || *month > 12 || *day < 1 ||
      *day > 31 || *hour > 23 || *minute > 59 || second > 59) {
    return bad();
  }
  const absl::CivilSecond civil(*year, *month, *day, *hour, *minute, second);
  if (civil.day() != *day) return bad();  // Feb 30 normalized away
  if (rest.empty()) {
    const auto info = zone.At(civil);
    return absl::ToUnixMillis(info.kind == absl::TimeZone::TimeInfo::SKIPPED ? info.trans
                                                                             : info.pre);
  }
  int offset_minutes = 0;
  if (rest != "Z") {
    if (rest.size() != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':') return bad();
    const auto hours = number(rest.substr(1, 2));
    const auto minutes = number(rest.substr(4, 2));
    if (!hours || !minutes || *hours > 14 || *minutes > 59) return bad();
    offset_minutes = (rest[0] == '-' ? -1 : 1) * (*hours * 60 + *minutes);
  }
  const absl::Time utc = absl::FromCivil(civil, absl::UTCTimeZone());
  return absl::ToUnixMillis(utc - absl::Minutes(offset_minutes));
}

}  // namespace

Result<TimeZone> TimeZone::load(std::string_view name) {
  absl::TimeZone zone;
  const bool plain =
      !name.empty() && name.size() <= 64 && name.find("..") == std::string_view::npos &&
      !name.starts_with('/') && std::ranges::all_of(name, [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '/' || c == '_' || c == '-' || c == '+';
      });
  if (!plain || !absl::LoadTimeZone(std::string(name), &zone)) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("unknown time zone \"{}\" (an IANA name such as Europe/Berlin or UTC)",
                            name.substr(0, 64)));
  }
  return TimeZone(std::string(name), std::make_shared<const Impl>(Impl{zone}));
}

std::string TimeZone::format(std::int64_t unix_ms) const {
  return absl::FormatTime("%Y-%m-%d %H:%M %Z", absl::FromUnixMillis(unix_ms), impl_->zone);
}

Result<Cron> parse_cron(std::string_view text) {
  std::string_view expression = text;
  if (text.starts_with('@')) {
    expression = alias_of(text);
    if (expression.empty()) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("unknown cron alias \"{}\" (@yearly, @monthly, @weekly, @daily, "
                              "@hourly)",
                              text.substr(0, 32)));
    }
  }
  std::vector<std::string_view> fields;
  std::size_t at = 0;
  while (at < expression.size()) {
    const std::size_t start = expression.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(expression.find_first_of(" \t", start), expression.size());
    fields.push_back(expression.substr(start, end - start));
    at = end;
  }
  if (fields.size() != 5) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("a cron expression has five fields: minute hour day-of-month month "
                            "day-of-week (got {})",
                            fields.size()));
  }
  Cron cron;
  bool star = false;
  AVA_TRY_VOID(parse_field(fields[0], {"minute", 0, 59, {}}, cron.minutes, star));
  AVA_TRY_VOID(parse_field(fields[1], {"hour", 0, 23, {}}, cron.hours, star));
  AVA_TRY_VOID(parse_field(fields[2], {"day of month", 1, 31, {}}, cron.days, cron.any_day));
  AVA_TRY_VOID(parse_field(fields[3], {"month", 1, 12, month_names, 1}, cron.months, star));
  std::bitset<8> weekdays;
  AVA_TRY_VOID(
      parse_field(fields[4], {"day of week", 0, 7, day_names, 0}, weekdays, cron.any_weekday));
  for (std::size_t day = 0; day < 7; ++day) cron.weekdays[day] = weekdays[day];
  if (weekdays[7]) cron.weekdays[0] = true;  // 7 is Sunday too
  return cron;
}

std::string_view to_string(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::cron: return "cron";
    case ScheduleKind::every: return "every";
    case ScheduleKind::at: return "at";
  }
  return "cron";
}

Result<ScheduleKind> parse_schedule_kind(std::string_view text) {
  if (text == "cron") return ScheduleKind::cron;
  if (text == "every") return ScheduleKind::every;
  if (text == "at") return ScheduleKind::at;
  return fail(ErrorCode::invalid_argument, "a schedule is cron, every or at");
}

Result<Schedule> parse_schedule(ScheduleKind kind, std::string_view text, const TimeZone& zone) {
  Schedule schedule{.kind = kind, .text = std::string(text)};
  switch (kind) {
    case ScheduleKind::cron: {
      AVA_TRY(schedule.cron, parse_cron(text));
      break;
    }
    case ScheduleKind::every: {
      AVA_TRY(schedule.every_ms, parse_interval(text));
      break;
    }
    case ScheduleKind::at: {
      AVA_TRY(schedule.at_ms, parse_time(text, zone.impl().zone));
      break;
    }
  }
  return schedule;
}

std::optional<std::int64_t> next_after(const Schedule& schedule, const TimeZone& zone,
                                       std::int64_t after_ms, std::int64_t anchor_ms) {
  switch (schedule.kind) {
    case ScheduleKind::cron: return next_cron(schedule.cron, zone.impl().zone, after_ms);
    case ScheduleKind::every: {
      if (schedule.every_ms <= 0) return std::nullopt;
      if (after_ms < anchor_ms) return anchor_ms + schedule.every_ms;
      const std::int64_t periods = (after_ms - anchor_ms) / schedule.every_ms + 1;
      return anchor_ms + periods * schedule.every_ms;
    }
    case ScheduleKind::at:
      if (schedule.at_ms > after_ms) return schedule.at_ms;
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::int64_t> next_runs(const Schedule& schedule, const TimeZone& zone,
                                    std::int64_t after_ms, std::int64_t anchor_ms, int count) {
  std::vector<std::int64_t> runs;
  std::int64_t from = after_ms;
  for (int i = 0; i < count; ++i) {
    const auto next = next_after(schedule, zone, from, anchor_ms);
    if (!next) break;
    runs.push_back(*next);
    from = *next;
  }
  return runs;
}

}  // namespace ava::automation
