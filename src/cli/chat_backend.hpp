#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <expected>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/agent/agent.hpp"
#include "ava/session/event.hpp"
#include "cli/agent_setup.hpp"
#include "cli/prompt_run.hpp"

namespace ava::cli {

// The conversation behind `ava chat`, wherever its agent runs: in this
// process (chat_session.hpp) or in the backend that owns the home
// (chat_remote.hpp), which the chat then reaches as a client, like the
// desktop. The terminal's thread calls these; what the conversation reports
// is queued for it (next()).
class ChatBackend {
 public:
  struct TurnDone {};
  using Item = std::variant<session::Event, agent::LiveEvent, TurnDone>;

  struct Info {
    std::string session_id;
    std::string provider;
    std::string model;
    std::string permission_mode;
    std::filesystem::path cwd;
    bool existing = false;  // a conversation continued
    std::string host;       // empty: this process; else who runs it ("the backend, pid 42")
  };
  // The last exchange of a continued conversation, shown under the banner.
  struct Recap {
    std::string input;
    std::string answer;
  };

  virtual ~ChatBackend() = default;

  virtual Info info() = 0;
  virtual Recap recap() = 0;
  // Approvals asked before the chat started, still waiting.
  virtual std::vector<session::ApprovalRequested> pending_approvals() = 0;

  // Sends the input (with images, when given); a TurnDone is queued once
  // what it started is over.
  virtual Result<void> send(const std::string& text,
                            std::vector<content::ImageBlock> images = {}) = 0;
  // Queues a TurnDone once the turn of `turn_id` (a resumed one) is over.
  virtual void watch_turn(const std::string& turn_id) = 0;
  virtual Result<void> abort() = 0;
  virtual Result<void> decide(const std::string& approval_id,
                              const agent::ApprovalAnswer& answer) = 0;
  // ask, accept-edits, plan or auto from the next call on (invalid_argument
  // for another word); kept in the log like a mode chosen in any client.
  virtual Result<void> set_permission_mode(const std::string& mode) = 0;
  // Another model from the next step on (empty provider: the current
  // one's); a model_changed event records it.
  virtual Result<void> set_model(const agent::ModelChoice& choice) = 0;
  // The next item, or nullopt after `timeout`.
  std::optional<Item> next(std::chrono::milliseconds timeout);
  // /clear: a new conversation with the same options, in place of this one.
  virtual std::expected<std::unique_ptr<ChatBackend>, SetupFailure> start_new() = 0;

 protected:
  // Queues an item for next(); from any thread.
  void push(Item item);

 private:
  std::mutex queue_mutex_;
  std::condition_variable queue_ready_;
  std::deque<Item> queue_;
};

// The backend that owns the home when one runs (unless `in_process`), else
// an agent in this process. `session_mcp_servers`: MCP servers of this
// conversation only, as an mcpServers object (agent_setup.hpp), run where
// its agent runs; a conversation the backend already has gets none.
// `customize`: as LocalAgentOptions has it, for an agent in this process
// only (the backend's agents are configured there).
std::expected<std::unique_ptr<ChatBackend>, SetupFailure> open_chat_backend(
    const PromptFlags& flags, bool in_process,
    const nlohmann::json& session_mcp_servers = nlohmann::json::object(),
    const AgentCustomizer& customize = {});

}  // namespace ava::cli
