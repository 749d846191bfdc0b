#pragma once

namespace ava::cli {

// The `ava` command line: parses argv, dispatches to the chosen mode and
// returns the process exit code.
int run_cli(int argc, char** argv);

}  // namespace ava::cli
