#pragma once

#include <filesystem>
#include <string>

#include "ava/base/error.hpp"

// Offline replay of a recording (docs/eval.md): the same Agent, rebuilt with
// the recorded system prompt, tools and initial prompt, answered by the
// recorded provider exchanges and tool responses. It never contacts a
// provider and never runs a real tool.
namespace ava::eval {

struct ReplayReport {
  bool passed = false;
  // Why it was refused: the first request that differs (with the field and
  // both values), a missing exchange, an unused one, or a changed outcome.
  std::string refusal;
  int exchanges_recorded = 0;
  int exchanges_replayed = 0;
  int tool_calls = 0;
  int turns = 0;        // replayed (a conversation's recording may hold several)
  std::string outcome;  // the replayed (last) turn's end reason
  std::string text;     // its last assistant text
};

// An error when the recording cannot be read or is incomplete; a report
// (passed or refused) otherwise.
Result<ReplayReport> replay(const std::filesystem::path& recording);

}  // namespace ava::eval
