#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "ava/base/home.hpp"

// `ava doctor`: checks a user can act on, each with the fix when it fails.
// Nothing here needs a compiler or the source tree, and no secret is ever in
// a finding (a key is "present", "from ANTHROPIC_API_KEY", never its value).
namespace ava::doctor {

enum class Level { ok, info, warn, fail };
std::string_view to_string(Level level);  // "ok", "info", "warn", "fail"

struct Finding {
  std::string area;  // "home", "disk", "backend", "provider", "local", "mcp", "sandbox", ...
  Level level = Level::ok;
  std::string summary;  // one line: what was found
  std::string fix;      // what to do about it; empty when nothing is needed
};

struct Options {
  base::EnvLookup env = base::process_env;
  // Each MCP server's start-up (a provider's listing has its own timeouts).
  std::chrono::milliseconds mcp_timeout{15000};
  bool check_mcp = true;  // start every enabled MCP server once
};

// Runs every check (the providers and MCP servers at once). Never fails:
// what cannot be checked is a finding too.
std::vector<Finding> run_checks(const base::Home& home, const Options& options = {});

// The worst level among the findings (ok for none).
Level worst(const std::vector<Finding>& findings);

}  // namespace ava::doctor
