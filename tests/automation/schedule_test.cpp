// Schedules against real tzdata: cron forms and names, DST forward and back
// in named zones, month ends, leap days, intervals and one-time runs.
#include <catch2/catch.hpp>

#include "ava/automation/schedule.hpp"

using namespace ava;
using namespace ava::automation;

namespace {

TimeZone zone(const char* name) {
  auto loaded = TimeZone::load(name);
  REQUIRE(loaded);
  return *loaded;
}

// A local time in `z` as Unix ms ("2026-03-29 02:30").
std::int64_t at(const TimeZone& z, const char* text) {
  auto parsed = parse_schedule(ScheduleKind::at, text, z);
  REQUIRE(parsed);
  return parsed->at_ms;
}

std::vector<std::string> next_times(const char* cron, const TimeZone& z, const char* after,
                                    int count) {
  auto schedule = parse_schedule(ScheduleKind::cron, cron, z);
  REQUIRE(schedule);
  std::vector<std::string> out;
  for (const auto ms : next_runs(*schedule, z, at(z, after), 0, count)) out.push_back(z.format(ms));
  return out;
}

}  // namespace

TEST_CASE("cron fields: lists, ranges, steps, names and aliases", "[automation][schedule]") {
  const auto utc = zone("UTC");
  CHECK(next_times("*/20 9-10 * * *", utc, "2026-12-05 08:59", 4) ==
        std::vector<std::string>{"2026-12-05 09:00 UTC", "2026-12-05 09:20 UTC",
                                 "2026-12-05 09:40 UTC", "2026-12-05 10:00 UTC"});
  // Weekdays by name; 2026-12-05 is a Saturday.
  CHECK(next_times("30 8 * * mon-fri", utc, "2026-12-05 12:00", 2) ==
        std::vector<std::string>{"2026-12-07 08:30 UTC", "2026-12-08 08:30 UTC"});
  CHECK(next_times("0 0 * * 7", utc, "2026-12-05 12:00", 1) ==
        std::vector<std::string>{"2026-12-06 00:00 UTC"});  // 7 is Sunday
  CHECK(next_times("0 12 1 jan,jul *", utc, "2026-12-05 00:00", 2) ==
        std::vector<std::string>{"2027-01-01 12:00 UTC", "2027-07-01 12:00 UTC"});
  CHECK(next_times("@weekly", utc, "2026-12-05 00:00", 1) ==
        std::vector<std::string>{"2026-12-06 00:00 UTC"});
  CHECK(next_times("@hourly", utc, "2026-12-05 00:00", 1) ==
        std::vector<std::string>{"2026-12-05 01:00 UTC"});
  // Both day fields restricted: either matches (the 15th, or a Friday).
  CHECK(next_times("0 6 15 * fri", utc, "2026-12-10 00:00", 3) ==
        std::vector<std::string>{"2026-12-11 06:00 UTC", "2026-12-15 06:00 UTC",
                                 "2026-12-18 06:00 UTC"});
}

TEST_CASE("month ends and leap days", "[automation][schedule]") {
  const auto utc = zone("UTC");
  // The 31st skips the months without one.
  CHECK(next_times("0 0 31 * *", utc, "2027-01-31 12:00", 2) ==
        std::vector<std::string>{"2027-03-31 00:00 UTC", "2027-05-31 00:00 UTC"});
  // February 29th comes in leap years only.
  CHECK(next_times("0 12 29 2 *", utc, "2026-12-05 00:00", 2) ==
        std::vector<std::string>{"2028-02-29 12:00 UTC", "2032-02-29 12:00 UTC"});
  // A date that never comes: no run rather than a search without end.
  auto never = parse_schedule(ScheduleKind::cron, "0 0 30 2 *", utc);
  REQUIRE(never);
  CHECK_FALSE(next_after(*never, utc, 0, 0));
}

TEST_CASE("DST: a skipped hour runs once after the gap, a repeated one once",
          "[automation][schedule]") {
  const auto berlin = zone("Europe/Berlin");
  // 2026-03-29: 02:00 CET jumps to 03:00 CEST. 02:30 does not exist.
  CHECK(next_times("30 2 * * *", berlin, "2026-03-28 12:00", 3) ==
        std::vector<std::string>{"2026-03-29 03:00 CEST", "2026-03-30 02:30 CEST",
                                 "2026-03-31 02:30 CEST"});
  // Every quarter hour across the gap: each time once, none twice.
  CHECK(next_times("*/15 * * * *", berlin, "2026-03-29 01:40", 4) ==
        std::vector<std::string>{"2026-03-29 01:45 CET", "2026-03-29 03:00 CEST",
                                 "2026-03-29 03:15 CEST", "2026-03-29 03:30 CEST"});
  // 2026-10-25: 03:00 CEST goes back to 02:00 CET. 02:30 happens twice: once.
  CHECK(next_times("30 2 * * *", berlin, "2026-10-24 12:00", 2) ==
        std::vector<std::string>{"2026-10-25 02:30 CEST", "2026-10-26 02:30 CET"});
  const auto new_york = zone("America/New_York");
  // 2026-11-01 01:00-02:00 repeats in New York.
  CHECK(next_times("0 * * * *", new_york, "2026-11-01 00:30", 3) ==
        std::vector<std::string>{"2026-11-01 01:00 EDT", "2026-11-01 02:00 EST",
                                 "2026-11-01 03:00 EST"});
}

TEST_CASE("intervals count from the anchor, one-time runs run once", "[automation][schedule]") {
  const auto utc = zone("UTC");
  auto every = parse_schedule(ScheduleKind::every, "10m", utc);
  REQUIRE(every);
  CHECK(every->every_ms == 600'000);
  CHECK(next_after(*every, utc, 1'000, 1'000) == 601'000);
  CHECK(next_after(*every, utc, 601'000, 1'000) == 1'201'000);
  CHECK(next_after(*every, utc, 0, 1'000) == 601'000);
  auto once = parse_schedule(ScheduleKind::at, "2026-12-24T18:00:00+01:00", utc);
  REQUIRE(once);
  CHECK(utc.format(once->at_ms) == "2026-12-24 17:00 UTC");
  CHECK(next_after(*once, utc, once->at_ms - 1, 0) == once->at_ms);
  CHECK_FALSE(next_after(*once, utc, once->at_ms, 0));
  auto zulu = parse_schedule(ScheduleKind::at, "2026-12-24 18:00Z", zone("Asia/Tokyo"));
  REQUIRE(zulu);
  CHECK(utc.format(zulu->at_ms) == "2026-12-24 18:00 UTC");
}

TEST_CASE("malformed schedules and zones are refused with the reason", "[automation][schedule]") {
  const auto utc = zone("UTC");
  for (const char* bad :
       {"", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 8",
        "*/0 * * * *", "5-1 * * * *", "a * * * *", "@reboot", "* * * * mon-", "1,,2 * * * *"}) {
    INFO(bad);
    CHECK_FALSE(parse_schedule(ScheduleKind::cron, bad, utc));
  }
  for (const char* bad : {"", "10", "0m", "m", "10x", "-5m", "9999999999999d"}) {
    INFO(bad);
    CHECK_FALSE(parse_schedule(ScheduleKind::every, bad, utc));
  }
  for (const char* bad : {"tomorrow", "2026-02-30 10:00", "2026-12-24 25:00", "2026-12-24 18:00+1",
                          "2026/12/24 18:00"}) {
    INFO(bad);
    CHECK_FALSE(parse_schedule(ScheduleKind::at, bad, utc));
  }
  for (const char* bad : {"Mars/Olympus", "../../etc/passwd", "/etc/localtime", ""}) {
    INFO(bad);
    CHECK_FALSE(TimeZone::load(bad));
  }
  const auto message = parse_cron("61 * * * *").error().message;
  CHECK(message.find("minute") != std::string::npos);
}
