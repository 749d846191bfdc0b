#pragma once

#include "ava/base/error.hpp"
#include "ava/proc/run.hpp"

namespace ava::eval {

// proc::run to completion on a private io_context: the evaluation tools run
// one process at a time and have nothing else to do while it runs.
Result<proc::RunResult> run_sync(proc::RunOptions options);

}  // namespace ava::eval
