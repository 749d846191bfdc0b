#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ava::cli {

// A secret typed at the controlling terminal (/dev/tty) with echo off, so it
// is neither shown nor left in the scrollback; nullopt without a terminal or
// at end of input. The trailing newline is dropped.
std::optional<std::string> ask_secret(std::string_view prompt);

// A line typed at the terminal, echoed; nullopt without one.
std::optional<std::string> ask_line(std::string_view prompt);

}  // namespace ava::cli
