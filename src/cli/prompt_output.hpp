#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "ava/agent/agent.hpp"
#include "ava/base/error.hpp"
#include "ava/llm/catalog.hpp"

namespace ava::cli {

enum class OutputFormat { text, json, stream_json };

// What `ava -p` prints: in text mode the final answer; in json mode one
// result object; in stream-json mode one JSON object per line (an init line,
// every durable session event as the log stores it, with
// --include-partial-messages the text as it streams, then the result), so
// scripts can follow a run as it happens. The schema is versioned
// (schema_version, docs/schema/headless-v1.json) and snake_case throughout,
// with Claude Code's names where it has one (session_id, total_cost_usd,
// is_error, num_turns, permission_denials).
inline constexpr int headless_schema_version = 1;

class PromptOutput {
 public:
  PromptOutput(OutputFormat format, bool verbose, bool partial_messages = false)
      : format_(format), verbose_(verbose), partial_messages_(partial_messages) {}

  void init(const agent::Agent& agent, const std::vector<std::string>& tools);
  // Durable events, from the log's writing thread.
  void on_event(const session::Event& event);
  // Live progress (tool activity for --verbose, stream deltas for
  // --include-partial-messages), from the driver.
  void on_live(const agent::LiveEvent& event);
  // Prints the outcome and returns the exit code: 0, or 130 when aborted.
  // A turn that failed is an Error naming how it ended, for cli::finish().
  Result<int> finish(const agent::Agent& agent, const llm::ModelInfo& model,
                     std::int64_t duration_ms);

 private:
  void line(const nlohmann::json& object);
  void note_refusal(const session::ToolResult& result);

  OutputFormat format_;
  bool verbose_;
  bool partial_messages_;
  std::string session_id_;
  std::mutex mutex_;
  std::string last_text_;
  std::optional<session::TurnEnded> turn_end_;
  std::optional<std::string> blocked_;         // a UserPromptSubmit hook's reason
  std::optional<std::string> command_output_;  // a built-in's answer (/help, /cost, ...)
  std::string untimely_error_;                 // an error outside a turn (a failed /compact)
  std::string turn_id_;
  int steps_ = 0;
  llm::Usage usage_;                                   // of this run's turns
  nlohmann::json refusals_ = nlohmann::json::array();  // calls the permission check refused
};

}  // namespace ava::cli
