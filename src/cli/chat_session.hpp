#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>

#include "cli/agent_setup.hpp"
#include "cli/chat_backend.hpp"

namespace ava::cli {

// `ava chat`'s agent in this process, on a thread of its own so the
// terminal's thread can block in the line editor.
class ChatSession final : public ChatBackend {
 public:
  // `session_mcp_servers`: as LocalAgentOptions has them (agent_setup.hpp).
  static std::expected<std::unique_ptr<ChatBackend>, SetupFailure> open(
      const PromptFlags& flags, std::vector<capabilities::McpServerEntry> session_mcp_servers = {},
      AgentCustomizer customize = {});
  ~ChatSession() override;  // closes the agent (its log synced), then the MCP servers
  ChatSession(const ChatSession&) = delete;
  ChatSession& operator=(const ChatSession&) = delete;

  Info info() override;
  Recap recap() override;
  std::vector<session::ApprovalRequested> pending_approvals() override;
  Result<void> send(const std::string& text, std::vector<content::ImageBlock> images) override;
  void watch_turn(const std::string& turn_id) override;
  Result<void> abort() override;
  Result<void> decide(const std::string& approval_id, const agent::ApprovalAnswer& answer) override;
  Result<void> set_permission_mode(const std::string& mode) override;
  Result<void> set_model(const agent::ModelChoice& choice) override;
  std::expected<std::unique_ptr<ChatBackend>, SetupFailure> start_new() override;

 private:
  ChatSession(std::unique_ptr<LocalAgent> local, PromptFlags flags,
              std::vector<capabilities::McpServerEntry> session_mcp_servers,
              AgentCustomizer customize);

  std::unique_ptr<LocalAgent> local_;
  PromptFlags flags_;
  std::vector<capabilities::McpServerEntry> session_mcp_servers_;
  AgentCustomizer customize_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::thread thread_;
};

}  // namespace ava::cli
