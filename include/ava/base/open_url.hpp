#pragma once

#include <string>
#include <string_view>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"

namespace ava::base {

struct OpenUrlOptions {
  // The opener, looked up in PATH; tests put a fake one here.
  std::string program = "xdg-open";
  // Where DISPLAY and WAYLAND_DISPLAY are read.
  EnvLookup env = process_env;
};

// Whether `url` is one open_url would hand over: http or https with a host,
// and no whitespace or control characters (a browser must never be given
// javascript:, data: or file: from a peer's metadata).
Result<void> check_browser_url(std::string_view url);

// Opens `url` in the user's browser through xdg-open, detached (a session of
// its own, stdio on /dev/null) and reaped, so no zombie is left. Returns once
// the opener was started. invalid_argument for anything check_browser_url
// refuses; unavailable when neither DISPLAY nor WAYLAND_DISPLAY is set (over
// SSH the caller prints the URL instead); not_found when there is no
// opener, another error when it cannot be started.
Result<void> open_url(std::string_view url, const OpenUrlOptions& options = {});

}  // namespace ava::base
