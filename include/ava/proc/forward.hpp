#pragma once

// Forward declarations of the proc package (namespace ava::proc).
namespace ava::proc {
class OutputCapture;
class PtyProcess;

struct Child;
struct ExitStatus;
struct RunOptions;
struct RunResult;
struct SpawnOptions;
}  // namespace ava::proc
