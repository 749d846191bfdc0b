#include "ava/base/clock.hpp"

#include <ctime>

#include <fmt/format.h>

namespace ava::base {

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(WallClock::now().time_since_epoch())
      .count();
}

std::string format_utc(std::int64_t unix_ms) {
  auto seconds = static_cast<std::time_t>(unix_ms / 1000);
  auto millis = unix_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    --seconds;
  }
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

}  // namespace ava::base
