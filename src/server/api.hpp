#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <boost/asio/thread_pool.hpp>
#include <nlohmann/json_fwd.hpp>

#include "ava/analytics/index.hpp"
#include "ava/automation/scheduler.hpp"
#include "ava/httpd/http_server.hpp"
#include "ava/httpd/login_gate.hpp"
#include "ava/llm/settings.hpp"
#include "ava/machine/runtime_files.hpp"
#include "ava/oauth/relay.hpp"
#include "ava/protocol/responses.hpp"
#include "ava/registry/registry.hpp"
#include "ava/server/settings_source.hpp"
#include "ava/terminal/session.hpp"
#include "server/conversation_host.hpp"

// The HTTP/SSE API (docs/api.md), shared by `ava-backend` and `ava --serve`.
namespace ava::server {

struct ServerInfo {
  std::string mode;  // "backend" or "serve"
  std::string version;
  machine::MachineIdentity machine;
  pid_t pid = 0;
  std::int64_t started_ms = 0;
};

// Sign-in redirects for clients behind SSH tunnels (POST /api/tunnel-ports
// with redirectPort): each tunnel port's relay, so a sign-in started
// through that tunnel sends the browser to the client's own machine.
class SignInRelays {
 public:
  static constexpr std::size_t max_relays = 16;
  void set(std::uint16_t tunnel_port, std::uint16_t redirect_port);
  // The relay of a tunnel port; null when it has none.
  std::shared_ptr<oauth::RedirectRelay> for_tunnel(std::uint16_t tunnel_port) const;
  // To every relay: the sign-in's unguessable state picks the one waiting.
  bool deliver(std::string_view query) const;

 private:
  mutable std::mutex mutex_;
  std::deque<std::pair<std::uint16_t, std::shared_ptr<oauth::RedirectRelay>>> relays_;
};

struct ApiContext {
  ServerInfo info;
  registry::Registry* registry = nullptr;
  ConversationHost* host = nullptr;
  StatusFeed* status = nullptr;
  std::shared_ptr<SettingsSource> settings;   // take current() per request
  std::shared_ptr<capabilities::McpHub> mcp;  // the shared MCP connections
  std::optional<base::Home> home;
  std::function<void()> request_shutdown;  // POST /api/shutdown; empty: not offered
  // Set while POST /api/shutdown {"whenIdle": true} waits for the running
  // turns to end (an update): inputs are refused with 503 meanwhile.
  std::shared_ptr<std::atomic<bool>> restart_pending = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<httpd::LoginGate> logins;  // browser sessions (api_login.cpp)
  std::shared_ptr<SignInRelays> sign_in_relays = std::make_shared<SignInRelays>();
  std::shared_ptr<automation::Scheduler> automations;  // null: not scheduling here
  // The analytics index, opened on the first request and used only on its
  // own thread (one at a time, off the I/O threads).
  struct Analytics {
    boost::asio::thread_pool worker{1};
    std::optional<analytics::Index> index;
  };
  std::shared_ptr<Analytics> analytics = std::make_shared<Analytics>();
  // Interactive terminals (api_terminals.cpp), hung up at shutdown.
  static constexpr std::size_t max_terminals = 32;
  std::shared_ptr<terminal::Terminals> terminals =
      std::make_shared<terminal::Terminals>(max_terminals);
  // Open file watches (GET /api/projects/{id}/files/events): each holds an
  // inotify instance, of which a user has 128 by default.
  static constexpr int max_file_watches = 16;
  std::shared_ptr<std::atomic<int>> file_watches = std::make_shared<std::atomic<int>>(0);
};

// One function per route file (src/server/api_<area>.cpp).
void add_system_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_settings_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_project_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_conversation_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_event_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_mcp_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_skill_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_automation_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_analytics_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_terminal_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_file_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
// `GET /` (the login link, else the web UI's index), POST /api/login and
// POST /api/login-codes; `static_files` serves the UI.
void add_login_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context,
                      httpd::Handler static_files);

inline void add_api_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  add_system_routes(router, context);
  add_settings_routes(router, context);
  add_project_routes(router, context);
  add_conversation_routes(router, context);
  add_event_routes(router, context);
  add_mcp_routes(router, context);
  add_skill_routes(router, context);
  add_automation_routes(router, context);
  add_analytics_routes(router, context);
  add_terminal_routes(router, context);
  add_file_routes(router, context);
}

// Helpers shared by the route files.
// Most routes answer at once: they are written as plain functions (which
// also keeps braced JSON out of coroutine bodies, where g++ 12 miscompiles
// initializer lists) and adapted here. A route returns its failure as an
// Error; respond_to is the one place that turns it into a response, with the
// status httpd::http_status_for gives its code. Answers no code maps to
// (401 "unauthorized", 502 "mcp_server_failed") are successful responses.
using Reply = std::function<Result<httpd::HttpResponse>(const httpd::HttpRequest& request)>;
httpd::Handler answer(Reply reply);
// Also for the coroutine routes, which respond themselves.
httpd::HttpResponse respond_to(Result<httpd::HttpResponse> result);
// A route function bound to the shared context.
using RouteFunction = Result<httpd::HttpResponse> (*)(const ApiContext& context,
                                                      const httpd::HttpRequest& request);
inline Reply with(const std::shared_ptr<ApiContext>& context, RouteFunction route) {
  return [context, route](const httpd::HttpRequest& request) { return route(*context, request); };
}
// The request body as JSON; invalid_argument when it is not.
Result<nlohmann::json> json_body(const httpd::HttpRequest& request);
// A protocol shape (protocol/wire.hpp, responses.hpp) as the response body:
// routes never spell field names themselves.
template <protocol::Shaped T>
httpd::HttpResponse shaped_response(int status, const T& body) {
  return httpd::json_response(status, protocol::to_json(body));
}
protocol::DriverStatus driver_status(const agent::Status& status);
std::vector<protocol::PendingApproval> pending_approvals(const agent::Status& status);
protocol::LoadedDriver loaded_driver(const LiveConversation& live);
// The registry's record plus whether it is loaded (and, loaded, its seq).
protocol::ConversationView conversation_view(const ApiContext& context,
                                             protocol::Conversation conversation);

}  // namespace ava::server
