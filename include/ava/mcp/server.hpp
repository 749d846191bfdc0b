#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include "ava/base/error.hpp"
#include "ava/mcp/client.hpp"
#include "ava/mcp/session.hpp"
#include "ava/tool/registry.hpp"

namespace ava::mcp {

struct ServerConfig {
  std::string name;  // as configured; the middle of the tool names
  // A fresh transport for each connection attempt.
  std::function<std::unique_ptr<Transport>()> make_transport;
  SessionOptions session;
  std::chrono::milliseconds call_timeout{600'000};
  // After a failed start or a death the next use starts the server again at
  // once; after further consecutive failures it waits backoff_initial,
  // doubling per failure up to backoff_max.
  std::chrono::milliseconds backoff_initial{1000};
  std::chrono::milliseconds backoff_max{60'000};
};

// One configured server and its connection: started on first use, restarted
// on a later use after it died or failed to start, never sooner than the
// backoff allows. Thread-safe (its own strand).
class ServerConnection : public std::enable_shared_from_this<ServerConnection> {
 public:
  static std::shared_ptr<ServerConnection> create(const boost::asio::any_io_executor& executor,
                                                  ServerConfig config);
  ~ServerConnection();
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  const ServerConfig& config() const { return config_; }

  // The live session. While the backoff runs, the last failure is returned
  // at once (ErrorCode::unavailable, saying when the next attempt is).
  boost::asio::awaitable<Result<std::shared_ptr<Session>>> session();
  // A call went through: the failure count starts again.
  void report_success();
  // The server's tools, listed once per session and again after the server
  // sent notifications/tools/list_changed.
  boost::asio::awaitable<Result<std::vector<ToolInfo>>> tools();
  // Grows with every list_changed, so an owner of registered tools can tell
  // when to register them again.
  std::uint64_t tools_generation() const { return tools_generation_.load(); }
  boost::asio::awaitable<void> close();

  int sessions_started() const { return started_.load(); }

 private:
  ServerConnection(const boost::asio::any_io_executor& executor, ServerConfig config);
  boost::asio::awaitable<Result<std::shared_ptr<Session>>> session_on_strand();
  void note_failure(Error reason);

  boost::asio::any_io_executor executor_;
  Strand strand_;
  ServerConfig config_;
  std::shared_ptr<Session> session_;
  bool connecting_ = false;
  bool closed_ = false;
  std::vector<boost::asio::steady_timer*> waiting_;  // for the running connect
  int failures_ = 0;
  std::chrono::steady_clock::time_point retry_at_{};
  std::optional<Error> last_error_;
  std::optional<std::vector<ToolInfo>> tools_;
  std::atomic<std::uint64_t> tools_generation_{0};
  std::atomic<int> started_{0};
};

// "mcp__<server>__<tool>", each part reduced to [A-Za-z0-9_-] (others
// become '_') and the whole cut to the 64 characters providers accept.
std::string tool_name(std::string_view server, std::string_view tool);

// An MCP tool as an Ava tool: the server's description and input schema;
// arguments are checked by the server, which knows its whole schema. A
// server that cannot start, dies or times out gives a tool error the model
// can read; only a cancellation is an Error.
std::unique_ptr<tool::Tool> make_mcp_tool(std::shared_ptr<ServerConnection> server, ToolInfo info);

// Connects, lists the server's tools and adds them to the registry (again
// after a tools_generation() change: same names are replaced in place).
boost::asio::awaitable<Result<std::vector<std::string>>> register_server_tools(
    tool::ToolRegistry& registry, std::shared_ptr<ServerConnection> server);

}  // namespace ava::mcp
