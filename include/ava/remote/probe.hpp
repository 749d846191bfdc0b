#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"

namespace ava::remote {

// Where bootstrap installs Ava on a remote machine, relative to its home:
// one folder per version, `current` naming the one in use.
inline constexpr std::string_view remote_install_dir = ".local/share/ava";

// What a client learns about a machine before using it: its system (for the
// build to upload) and the Ava it already has, if any: the per-user install
// first, then PATH.
struct RemoteSystem {
  std::string os;    // `uname -s`: "Linux", "Darwin"
  std::string arch;  // `uname -m`: "x86_64", "aarch64"
  std::string home;
  std::optional<std::string> ava_path;
  std::optional<std::string> ava_version;  // the first line of `ava --version`
};

// A POSIX sh command (run through `sh -c`, whatever the login shell is)
// printing what parse_probe reads.
std::string probe_command();
// Strict: five labelled lines at most, each bounded; parse error otherwise.
Result<RemoteSystem> parse_probe(std::string_view output);

// Single-quotes `text` for a POSIX shell.
std::string shell_quote(std::string_view text);

}  // namespace ava::remote
