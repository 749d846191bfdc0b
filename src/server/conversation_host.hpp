#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json_fwd.hpp>

#include "ava/agent/agent.hpp"
#include "ava/base/home.hpp"
#include "ava/capabilities/mcp_hub.hpp"
#include "ava/httpd/event_feed.hpp"
#include "ava/protocol/responses.hpp"
#include "ava/registry/registry.hpp"
#include "ava/server/permissions.hpp"

namespace ava::server {

// The status stream (GET /api/status/events): driver states, live text
// deltas, tool activity, catalog and summary changes of every conversation.
// It describes the present, not history: nothing here is durable.
class StatusFeed {
 public:
  explicit StatusFeed(const boost::asio::any_io_executor& executor);
  void publish(const nlohmann::json& message);
  template <protocol::Shaped Message>
  void publish(const Message& message) {
    publish(protocol::to_json(message));
  }
  httpd::EventFeed& feed() { return *feed_; }
  std::shared_ptr<httpd::EventFeed> shared() { return feed_; }

 private:
  std::mutex mutex_;  // seq assignment and publish in one step keep seqs in order
  std::int64_t next_seq_ = 0;
  std::shared_ptr<httpd::EventFeed> feed_;
};

// A conversation whose agent is loaded: the agent and the feed of its
// durable events as SSE frames (id: = seq).
struct LiveConversation {
  std::string id;
  std::unique_ptr<agent::Agent> agent;
  std::shared_ptr<httpd::EventFeed> events;
  // The MCP servers given for this conversation only (its create request's
  // mcpServers); null without. Closed after its agent.
  std::shared_ptr<capabilities::McpHub> own_mcp;
};

// Owns the loaded agents. Conversations load lazily, on their first input,
// control or event subscription, so start-up does not grow with history.
// Thread-safe.
class ConversationHost {
 public:
  struct Options {
    boost::asio::any_io_executor executor;
    base::Home home;
    registry::Registry* registry = nullptr;
    StatusFeed* status = nullptr;
    agent::ProviderFactory provider_factory;
    base::Limits limits = base::Limits::defaults();
    // Shared MCP connections: each agent gets the tools of the servers
    // enabled in its project, and their changes (tools/list_changed) from
    // its next step. Null: built-in tools only.
    std::shared_ptr<capabilities::McpHub> mcp;
  };
  explicit ConversationHost(Options options);
  ~ConversationHost();

  // How a conversation that no person started runs (an automation's run):
  // its rules and mode, nobody to ask, and the automation it belongs to.
  struct Unattended {
    policy::Flags flags;
    PermissionDefaults defaults;
    std::string automation_id;
  };
  // A new conversation in a registered project, its agent loaded.
  Result<protocol::Conversation> create(const protocol::CreateConversation& request,
                                        const std::optional<Unattended>& unattended = {});
  // The loaded conversation, loading (and if needed recovering) its log on first use.
  Result<std::shared_ptr<LiveConversation>> open(const std::string& id);
  // Already loaded, or null.
  std::shared_ptr<LiveConversation> find_loaded(const std::string& id) const;
  std::vector<std::shared_ptr<LiveConversation>> loaded() const;
  // When the loaded agent's log refused a write (a full disk, an I/O error),
  // closes it, so the next open() loads the log again and recovers it: input
  // is taken again once the disk has room. Its own MCP servers stop, as on a
  // restart. Does nothing for a healthy or unloaded conversation.
  boost::asio::awaitable<void> reopen_if_failed(const std::string& id);
  std::filesystem::path log_path(const std::string& id) const;
  // Deletes a conversation for good: closes its agent when loaded (running
  // tools stop), removes it from the registry, then deletes its log and its
  // subagents' logs. Loads of it are refused meanwhile. A failure before
  // the registry write leaves everything in place; one after it leaves a
  // log nothing lists, which the answer's `leftover` names.
  struct Removal {
    protocol::Conversation conversation;
    std::vector<std::filesystem::path> deleted;
    std::vector<std::filesystem::path> leftover;
  };
  boost::asio::awaitable<Result<Removal>> remove(const std::string& id);

  // Shutdown: refuses further loads, aborts every running turn (a call
  // waiting for an approval stays pending), then closes each agent (tool
  // calls paired, logs synced) and ends its event streams.
  boost::asio::awaitable<void> close_all();

 private:
  // The hub of a create request's own MCP servers: checked like configured
  // ones, refused when a name is configured already, started at once.
  Result<std::shared_ptr<capabilities::McpHub>> own_mcp_hub(const nlohmann::json& servers,
                                                            const std::filesystem::path& project);
  Result<std::shared_ptr<LiveConversation>> attach(
      const std::string& id, std::unique_ptr<agent::Agent> agent,
      std::shared_ptr<capabilities::McpHub> own_mcp = nullptr);
  void on_model_changed(const std::string& id, const session::ModelChanged& changed);
  void on_turn_end(const std::weak_ptr<LiveConversation>& weak);
  // The MCP tools of the project's servers, followed while the agent runs.
  std::shared_ptr<tool::ToolSource> tool_source_for(const std::filesystem::path& project) const;

  Options options_;
  std::mutex load_mutex_;  // one log load at a time: no log is opened twice
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<LiveConversation>, std::less<>> loaded_;
  std::set<std::string, std::less<>> reopening_;  // closing after a write failure
  std::set<std::string, std::less<>> removing_;   // being deleted
  bool closing_ = false;
};

// One durable event as an SSE frame: id = seq, event = kind, data = the
// event's JSON line (the log's own encoding).
std::string event_frame(const session::Event& event);

// A live event as a status stream message; null for those not shown live.
nlohmann::json live_message(const std::string& conversation_id, const agent::LiveEvent& event);

// The agent's usage in the registry's shape.
protocol::TokenTotals totals_of(const llm::Usage& usage);

}  // namespace ava::server
