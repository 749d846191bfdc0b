#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#include <boost/asio/executor_work_guard.hpp>

#include "cli/agent_setup.hpp"

namespace ava::cli {

// `ava chat`'s agent: run in this process on a thread of its own, so the
// terminal's thread can block in the line editor. What the agent reports
// (durable events, live progress, the end of a turn) is queued for the
// terminal's thread, which alone prints.
class ChatSession {
 public:
  struct TurnDone {};
  using Item = std::variant<session::Event, agent::LiveEvent, TurnDone>;

  static std::expected<std::unique_ptr<ChatSession>, SetupFailure> open(const PromptFlags& flags);
  ~ChatSession();  // closes the agent (its log synced), then the MCP servers
  ChatSession(const ChatSession&) = delete;
  ChatSession& operator=(const ChatSession&) = delete;

  agent::Agent& agent() { return *local_->agent; }
  const LocalAgent& local() const { return *local_; }

  // Sends the input; a TurnDone is queued once the agent is idle again.
  Result<void> send(const std::string& text);
  // Queues a TurnDone once the agent is idle (a resumed conversation may be
  // waiting for an approval).
  void watch_turn();
  // The next item, or nullopt after `timeout`.
  std::optional<Item> next(std::chrono::milliseconds timeout);

 private:
  explicit ChatSession(std::unique_ptr<LocalAgent> local);
  void push(Item item);

  std::unique_ptr<LocalAgent> local_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Item> items_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::thread thread_;
};

}  // namespace ava::cli
