#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/machine/runtime_files.hpp"
#include "cli/chat_backend.hpp"

namespace ava::cli {

// `ava chat` as a client of the backend that owns the home, like the
// desktop: the conversation, its agent and its MCP servers live in the
// backend (docs/api.md); this follows the conversation's events and the
// status stream's live deltas over SSE on a thread of its own, and sends
// input, aborts and approvals as requests. Closing the chat leaves the
// conversation to the backend.
class RemoteChat final : public ChatBackend {
 public:
  // `session_mcp_servers`: an mcpServers object for a new conversation of
  // the backend (refused for one it has: its tools are set).
  static std::expected<std::unique_ptr<ChatBackend>, SetupFailure> open(
      const base::Home& home, const machine::BackendEndpoint& backend, const PromptFlags& flags,
      const nlohmann::json& session_mcp_servers = nlohmann::json::object());
  ~RemoteChat() override;
  RemoteChat(const RemoteChat&) = delete;
  RemoteChat& operator=(const RemoteChat&) = delete;

  Info info() override;
  Recap recap() override { return recap_; }
  std::vector<session::ApprovalRequested> pending_approvals() override { return pending_; }
  Result<void> send(const std::string& text, std::vector<content::ImageBlock> images) override;
  void watch_turn(const std::string& turn_id) override;
  Result<void> abort() override;
  Result<void> decide(const std::string& approval_id, const agent::ApprovalAnswer& answer) override;
  Result<void> set_permission_mode(const std::string& mode) override;
  Result<void> set_model(const agent::ModelChoice& choice) override;
  std::expected<std::unique_ptr<ChatBackend>, SetupFailure> start_new() override;

 private:
  RemoteChat(base::Home home, machine::BackendEndpoint backend, PromptFlags flags);
  // The conversation's log up to now (read from the shared home): the recap,
  // the approvals still waiting and the cursor the event stream starts after.
  void read_history();
  void start_streams();
  boost::asio::awaitable<void> follow(std::string path, bool status_stream);
  void on_event(const session::Event& event);
  void on_status(const std::string& kind, const nlohmann::json& data);
  Result<nlohmann::json> call(std::string_view method, const std::string& path,
                              const nlohmann::json& body,
                              std::chrono::milliseconds timeout = std::chrono::seconds(10));

  base::Home home_;
  machine::BackendEndpoint backend_;
  PromptFlags flags_;
  std::string id_;  // the conversation
  std::filesystem::path cwd_;
  std::string provider_;
  std::string model_;
  std::string permission_mode_;
  bool existing_ = false;
  Recap recap_;
  std::vector<session::ApprovalRequested> pending_;
  std::int64_t after_seq_ = 0;

  std::mutex mutex_;           // the turn being waited for, the events' cursor
  std::string waiting_input_;  // the input whose turn the chat waits for
  std::string waiting_turn_;
  std::set<std::pair<std::string, int>> answered_;  // (turn, step) whose message came

  boost::asio::io_context io_;
  boost::asio::cancellation_signal stop_events_;
  boost::asio::cancellation_signal stop_status_;
  std::atomic<int> streams_ = 0;
  std::thread thread_;
};

}  // namespace ava::cli
