#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace ava::base {

using WallClock = std::chrono::system_clock;
using MonoClock = std::chrono::steady_clock;

// Milliseconds since the Unix epoch, for stored timestamps.
std::int64_t unix_ms_now();

// RFC 3339 in UTC with milliseconds: 2026-12-02T11:21:56.123Z.
std::string format_utc(std::int64_t unix_ms);

}  // namespace ava::base
