#include <catch2/catch.hpp>

#include "ava/base/clock.hpp"
#include "ava/base/limits.hpp"

TEST_CASE("timestamps format as RFC 3339 UTC with milliseconds", "[clock]") {
  CHECK(ava::base::format_utc(0) == "1970-01-01T00:00:00.000Z");
  CHECK(ava::base::format_utc(1'796'210'516'123) == "2026-12-02T11:21:56.123Z");
  CHECK(ava::base::format_utc(-1) == "1969-12-31T23:59:59.999Z");
}

TEST_CASE("limits are explicit and consistent", "[limits]") {
  const auto& limits = ava::base::Limits::defaults();
  CHECK(limits.session_record >= limits.tool_output);
  CHECK(limits.sse_frame >= limits.session_record);
  CHECK(limits.process_capture >= limits.tool_output);
  CHECK(limits.bash_timeout <= limits.bash_timeout_max);
  CHECK(limits.max_steps_per_turn > 0);
}
