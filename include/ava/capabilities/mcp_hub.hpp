#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json_fwd.hpp>

#include "ava/base/home.hpp"
#include "ava/capabilities/mcp_config.hpp"
#include "ava/mcp/server.hpp"
#include "ava/oauth/oauth.hpp"
#include "ava/protocol/capabilities.hpp"

namespace ava::capabilities {

// The transport configuration of a stored server: stdio servers get their
// stderr appended to AVA_HOME/logs/mcp-<name>.log; `default_cwd` is their
// working directory when the entry names none. HTTP servers without their
// own Authorization header sign in with OAuth through `credentials`; a
// process that runs agents never waits for a person, so a server that
// needs a sign-in fails the request with a hint naming `ava mcp login`.
mcp::ServerConfig server_config(const boost::asio::any_io_executor& executor,
                                const McpServerEntry& entry, const base::Home& home,
                                const std::filesystem::path& default_cwd,
                                std::shared_ptr<oauth::CredentialStore> credentials);

// Tool lists as the store caches them.
nlohmann::json tools_to_json(const std::vector<mcp::ToolInfo>& tools);
std::vector<mcp::ToolInfo> tools_from_json(const nlohmann::json& json);

// The configured MCP servers one process uses: one ServerConnection per
// server, shared by every agent the process runs (the backend's
// conversations, or the one agent of `ava -p`). A server's connection is
// replaced when its stored configuration changes; agents that hold tools of
// the old one keep it until close(). Thread-safe.
class McpHub : public std::enable_shared_from_this<McpHub> {
 public:
  struct Options {
    boost::asio::any_io_executor executor;
    base::Home home;
    std::filesystem::path default_cwd;  // for stdio servers without their own cwd
    // A one-shot run (ava -p) reads the configured servers once, with the
    // rest of its settings, and passes them here; unset, the store is read
    // at each call, so a long-lived hub sees servers added or changed.
    std::optional<std::vector<McpServerEntry>> configured;
  };
  static std::shared_ptr<McpHub> create(Options options);
  ~McpHub();
  McpHub(const McpHub&) = delete;
  McpHub& operator=(const McpHub&) = delete;

  // Waits, at most `wait`, until every server enabled in `project` has
  // listed its tools in this process or failed to. Servers still starting
  // go on in the background.
  boost::asio::awaitable<void> wait_listed(std::filesystem::path project,
                                           std::chrono::milliseconds wait);

  // The tools of the servers enabled in `project`: as listed in this
  // process, else as the store cached them for the same configuration (a
  // call then waits for the server). Servers whose tools are unknown are
  // left out and start listing in the background. `notes` says, per server
  // left out or failing, why (for stderr or the log; never secrets).
  struct Offer {
    std::vector<std::unique_ptr<tool::Tool>> tools;
    std::vector<std::string> notes;
  };
  Offer tools_for(const std::filesystem::path& project);

  // Starts every server enabled in some project, so their tools are known
  // before the first conversation asks (the backend at start-up).
  void warm();

  // Moves on whenever a server's tool list, as listed in this process,
  // changed: a first listing, or a new one after the server sent
  // notifications/tools/list_changed (the hub lists again at once).
  std::uint64_t tools_version() const { return tools_version_.load(); }

  // Closes every connection (in parallel); later calls offer nothing.
  boost::asio::awaitable<void> close();

 private:
  struct Server;
  struct Gather;
  explicit McpHub(Options options);
  std::vector<McpServerEntry> enabled_entries(const std::filesystem::path* project,
                                              std::vector<std::string>& notes);
  std::shared_ptr<Server> server_for(const McpServerEntry& entry);  // mutex_ held
  void start_listing(const std::shared_ptr<Server>& server);        // mutex_ held
  void listed(const std::shared_ptr<Server>& server, std::uint64_t generation,
              Result<std::vector<mcp::ToolInfo>> tools);
  void tools_changed(const std::weak_ptr<Server>& server);

  Options options_;
  std::shared_ptr<oauth::CredentialStore> credentials_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Server>, std::less<>> servers_;
  std::vector<std::shared_ptr<mcp::ServerConnection>> retired_;
  bool closed_ = false;
  std::atomic<std::uint64_t> tools_version_{0};
};

}  // namespace ava::capabilities

namespace ava::capabilities {

// What `ava mcp test` and POST /api/mcp/servers/{name}/test report: a fresh
// connection's initialize answer and tool list (cached in the store).
struct McpProbe {
  mcp::ServerInfo server;
  std::vector<mcp::ToolInfo> tools;
};
boost::asio::awaitable<Result<McpProbe>> probe_server(boost::asio::any_io_executor executor,
                                                      McpServerEntry entry, base::Home home,
                                                      std::chrono::milliseconds timeout);
protocol::McpServerTest probe_view(const McpProbe& probe);

}  // namespace ava::capabilities
