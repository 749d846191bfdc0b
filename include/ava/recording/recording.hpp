#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/llm/items.hpp"
#include "ava/llm/stream.hpp"

// A recording of one `ava -p --record DIR` run (docs/eval.md), kept beside
// the session log, never inside it:
//   DIR/recording.json  the manifest: prompt, model binding, system prompt,
//                       and (once the run finished) its outcome
//   DIR/exchanges.jsonl one line per provider request of the agent: the
//                       request, each stream event, the assembled response
//   DIR/tools.jsonl     one line per tool call: name, arguments, the result
//                       the model was given
// Replay (the eval package) rebuilds the agent from these alone.
namespace ava::recording {

inline constexpr int format_version = 1;

struct Outcome {
  std::string reason;  // the turn's end reason (completed, error, max_steps, ...)
  std::string text;    // the last assistant text of the turn
  int exchanges = 0;
  int tool_calls = 0;
};

// One turn of the recorded conversation: the follow-up that started it and
// how it ended (absent while it runs, or when the run died in it).
struct RecordedTurn {
  std::string prompt;
  std::optional<Outcome> outcome;  // exchanges and tool_calls: counted up to its end
};

struct Manifest {
  int format = format_version;
  std::string ava_version;
  std::string session_id;
  std::string cwd;
  std::string prompt;
  std::string provider;
  std::string model;
  std::int64_t context_window = 0;
  std::optional<std::int64_t> max_output_tokens;
  int max_steps = 0;  // the run's --max-steps; 0: the default
  std::int64_t created_ms = 0;
  std::optional<Outcome> outcome;  // absent while running, or when the run died
  // Every turn in order (`ava -p`: one; a conversation of the API: each
  // follow-up). Older recordings have none: `prompt` and `outcome` are the
  // one turn.
  std::vector<RecordedTurn> turns;
  // Why replay cannot reproduce the run (input that arrived during a turn,
  // an image, a slash command); empty when it can.
  std::string not_replayable;
};

struct Exchange {
  nlohmann::json request;  // as recorded, compared field by field on replay
  std::vector<llm::StreamEvent> events;
  std::optional<llm::Response> response;  // absent: the call was cancelled
};

struct ToolResponse {
  std::string call_id;
  std::string name;
  std::string arguments;  // the model's JSON text
  std::string status;     // ok, error, interrupted, skipped
  std::vector<content::ToolResultContent> content;
  nlohmann::json details;  // null when none
};

struct Recording {
  Manifest manifest;
  std::vector<Exchange> exchanges;
  std::map<std::string, ToolResponse> tools;  // by call id
};

nlohmann::json to_json(const Manifest& manifest);
Result<Manifest> manifest_from_json(const nlohmann::json& value);

// Reads and checks a whole recording; errors name the file and line.
Result<Recording> load(const std::filesystem::path& dir);

}  // namespace ava::recording
