#pragma once

#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "ava/base/error.hpp"
#include "ava/llm/provider.hpp"
#include "ava/recording/recording.hpp"
#include "ava/session/event.hpp"

namespace ava::recording {

// Writes a recording while an agent runs (`ava -p --record DIR`, or a
// conversation created with "record" in the API). The
// application wraps each provider the agent's factory makes (wrap) and hands
// the agent's durable events to on_event; finish() writes the outcome. Each
// exchange and tool response is flushed as it completes, so a run that dies
// leaves what it did (and a manifest without an outcome, which replay
// refuses). Thread-safe.
class Recorder : public std::enable_shared_from_this<Recorder> {
 public:
  // `dir` must not exist or be empty; it is created 0700.
  static Result<std::shared_ptr<Recorder>> create(const std::filesystem::path& dir,
                                                  Manifest manifest);
  ~Recorder();

  // The provider of a model binding. A subagent's provider (made while a
  // `task` call runs) is returned as it is: its requests are the child's,
  // and replay answers the `task` call from tools.jsonl instead.
  std::unique_ptr<llm::Provider> wrap(std::unique_ptr<llm::Provider> provider,
                                      const std::string& provider_name, const std::string& model,
                                      std::int64_t context_window,
                                      std::optional<std::int64_t> max_output_tokens);

  void on_event(const session::Event& event);
  // The recorded session (its session_start came before the subscription).
  void set_session_id(std::string id);

  // Writes the outcome of the turn that ran (each turn's end writes the
  // manifest too, so a long conversation's recording replays up to its last
  // finished turn); the first write failure, if any.
  Result<void> finish();

  void record_exchange(const llm::Request& request, const std::vector<llm::StreamEvent>& events,
                       const std::optional<llm::Response>& response);

 private:
  Recorder(std::filesystem::path dir, Manifest manifest);
  Result<void> write_manifest();                                  // caller holds mutex_
  void not_replayable(std::string why);                           // caller holds mutex_
  void append_line(std::FILE* file, const nlohmann::json& line);  // caller holds mutex_

  std::filesystem::path dir_;
  std::mutex mutex_;
  Manifest manifest_;
  bool bound_ = false;
  std::FILE* exchanges_ = nullptr;
  std::FILE* tools_ = nullptr;
  std::optional<Error> failure_;
  int exchange_count_ = 0;
  int tool_count_ = 0;
  std::map<std::string, std::pair<std::string, std::string>> calls_;  // id -> name, arguments
  std::set<std::string> open_tasks_;                                  // `task` calls running now
  std::string last_text_;
  std::string end_reason_;
  std::deque<std::string> queued_prompts_;  // follow-ups acknowledged, not yet started
  std::string turn_text_;                   // the running turn's last assistant text
};

}  // namespace ava::recording
