#pragma once

#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/proc/sandbox.hpp"

// `ava sandbox-exec`: a command another program starts (an editor's
// terminal, through ACP) run with the same restrictions and environment
// as the bash tool's commands.
namespace ava::proc {

// Replaces this process with `argv` (PATH searched) inside `sandbox`, with
// the secret-looking variables dropped except those in `keep`. Returns only
// when that failed: then nothing ran.
Error exec_sandboxed(const std::vector<std::string>& argv, const Sandbox& sandbox,
                     const std::vector<std::string>& keep);

// The arguments of `ava sandbox-exec` for a command in `sandbox`:
// --mode M [--writable DIR]... [--network] [--keep NAME]... -- ARGV...
std::vector<std::string> sandbox_exec_arguments(const Sandbox& sandbox,
                                                const std::vector<std::string>& keep,
                                                const std::vector<std::string>& argv);

}  // namespace ava::proc
