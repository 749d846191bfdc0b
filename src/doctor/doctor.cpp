#include "ava/doctor/doctor.hpp"

#include <algorithm>

#include "doctor/checks.hpp"

namespace ava::doctor {

std::string_view to_string(Level level) {
  switch (level) {
    case Level::ok: return "ok";
    case Level::info: return "info";
    case Level::warn: return "warn";
    case Level::fail: return "fail";
  }
  return "fail";
}

std::vector<Finding> run_checks(const base::Home& home, const Options& options) {
  std::vector<Finding> findings;
  check_home(home, findings);
  check_disk(home, findings);
  check_backend(home, findings);
  check_network(home, options, findings);
  check_sandbox(findings);
  return findings;
}

Level worst(const std::vector<Finding>& findings) {
  Level level = Level::ok;
  for (const auto& finding : findings) level = std::max(level, finding.level);
  return level;
}

}  // namespace ava::doctor
