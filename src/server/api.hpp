#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ava/httpd/http_server.hpp"
#include "ava/httpd/login_gate.hpp"
#include "ava/llm/settings.hpp"
#include "ava/machine/runtime_files.hpp"
#include "ava/registry/registry.hpp"
#include "ava/server/settings_source.hpp"
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

struct ApiContext {
  ServerInfo info;
  registry::Registry* registry = nullptr;
  ConversationHost* host = nullptr;
  StatusFeed* status = nullptr;
  std::shared_ptr<SettingsSource> settings;   // take current() per request
  std::shared_ptr<capabilities::McpHub> mcp;  // the shared MCP connections
  std::optional<base::Home> home;
  std::function<void()> request_shutdown;    // POST /api/shutdown; empty: not offered
  std::shared_ptr<httpd::LoginGate> logins;  // browser sessions (api_login.cpp)
};

// One function per route file (src/server/api_<area>.cpp).
void add_system_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_settings_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_project_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_conversation_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_event_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_mcp_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
void add_skill_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context);
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
}

// Helpers shared by the route files.
// Most routes answer at once: they are written as plain functions (which
// also keeps braced JSON out of coroutine bodies, where g++ 12 miscompiles
// initializer lists) and adapted here.
using Reply = std::function<httpd::HttpResponse(const httpd::HttpRequest& request)>;
httpd::Handler answer(Reply reply);
// A route function bound to the shared context.
using RouteFunction = httpd::HttpResponse (*)(const ApiContext& context,
                                              const httpd::HttpRequest& request);
inline Reply with(const std::shared_ptr<ApiContext>& context, RouteFunction route) {
  return [context, route](const httpd::HttpRequest& request) { return route(*context, request); };
}
// The request body as JSON; invalid_argument when it is not.
Result<nlohmann::json> json_body(const httpd::HttpRequest& request);
nlohmann::json status_json(const agent::Status& status);
nlohmann::json conversation_json(const ApiContext& context,
                                 const protocol::Conversation& conversation);

}  // namespace ava::server
