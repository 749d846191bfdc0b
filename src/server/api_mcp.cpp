// /api/mcp/servers: the MCP servers of capabilities.sqlite3, as `ava mcp`
// manages them. Secrets (env and header values, tokens, credentials in
// arguments and URLs) are never sent back; the one exception is the
// sign-in page a login request asks for.
#include <cstdint>
#include <map>
#include <mutex>

#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/log.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_login.hpp"
#include "ava/capabilities/stored_credentials.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr std::chrono::milliseconds test_timeout{30'000};
constexpr std::chrono::milliseconds page_timeout{30'000};      // discovery and registration
constexpr std::chrono::milliseconds sign_in_timeout{300'000};  // the person in the browser

Result<capabilities::CapabilitiesStore> store_of(const ApiContext& context) {
  if (!context.home) return fail(ErrorCode::unavailable, "no home");
  return capabilities::CapabilitiesStore::open(*context.home);
}

// `store` is the request's open connection: signedIn needs no other.
protocol::McpServer server_view(const capabilities::CapabilitiesStore& store,
                                const capabilities::McpServerEntry& entry,
                                const std::optional<protocol::Project>& project) {
  auto out = capabilities::server_view(entry, false);
  if (project) out.enabled_here = capabilities::enabled_for(entry, project->path);
  if (entry.transport == "http") {
    if (auto row = store.oauth_row(entry.name)) out.signed_in = !row->data.empty();
  }
  return out;
}

Result<httpd::HttpResponse> list(const ApiContext& context, const httpd::HttpRequest& request) {
  std::optional<protocol::Project> project;
  if (auto id = request.query_value("project")) {
    project = context.registry->project(std::string(*id));
    if (!project) return fail(ErrorCode::not_found, "no such project");
  }
  AVA_TRY(auto store, store_of(context));
  AVA_TRY(auto servers, store.servers());
  protocol::McpServerList list;
  for (const auto& entry : servers) list.servers.push_back(server_view(store, entry, project));
  return shaped_response(200, list);
}

Result<httpd::HttpResponse> add(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  if (!body.is_object() || !body.contains("name") || !body["name"].is_string())
    return fail(ErrorCode::invalid_argument, "name must be a string");
  AVA_TRY(auto entry, capabilities::entry_from_json(body["name"].get<std::string>(), body));
  entry.source = "api";
  const bool replace = body.value("replace", false);
  AVA_TRY(auto store, store_of(context));
  AVA_TRY_VOID(store.add_server(entry, replace));
  auto stored = store.server(entry.name);
  if (!stored || !*stored) return fail(ErrorCode::internal, "the server was not stored");
  return shaped_response(201, server_view(store, **stored, std::nullopt));
}

Result<std::optional<bool>> enabled_of(const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto change, protocol::from_json<protocol::McpSwitch>(body));
  return change.enabled;
}

Result<httpd::HttpResponse> patch(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(auto enabled, enabled_of(request));
  AVA_TRY(auto store, store_of(context));
  AVA_TRY(auto entry, store.set_enabled(request.params[0], std::nullopt, enabled));
  return shaped_response(200, server_view(store, entry, std::nullopt));
}

Result<httpd::HttpResponse> remove(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(auto store, store_of(context));
  AVA_TRY_VOID(store.remove_server(request.params[0]));
  return shaped_response(200, protocol::Removed{});
}

Result<httpd::HttpResponse> switch_in_project(const ApiContext& context,
                                              const httpd::HttpRequest& request,
                                              std::optional<bool> enabled) {
  auto project = context.registry->project(request.params[1]);
  if (!project) return fail(ErrorCode::not_found, "no such project");
  AVA_TRY(auto store, store_of(context));
  AVA_TRY(auto entry,
          store.set_enabled(request.params[0], std::filesystem::path(project->path), enabled));
  return shaped_response(200, server_view(store, entry, project));
}

Result<httpd::HttpResponse> set_in_project(const ApiContext& context,
                                           const httpd::HttpRequest& request) {
  AVA_TRY(auto enabled, enabled_of(request));
  return switch_in_project(context, request, enabled);
}

Result<httpd::HttpResponse> clear_in_project(const ApiContext& context,
                                             const httpd::HttpRequest& request) {
  return switch_in_project(context, request, std::nullopt);
}

Result<capabilities::McpServerEntry> entry_named(const ApiContext& context,
                                                 const std::string& name) {
  AVA_TRY(auto store, store_of(context));
  AVA_TRY(auto entry, store.server(name));
  if (!entry) return fail(ErrorCode::not_found, "no MCP server named " + name);
  return std::move(*entry);
}

httpd::HttpResponse probe_response(const std::string& name,
                                   const Result<capabilities::McpProbe>& probe) {
  if (!probe) {
    // The server failed, not this request: 502 with the reason.
    return httpd::error_response(502, "mcp_server_failed",
                                 "server " + name + ": " + base::redact(probe.error().message));
  }
  return shaped_response(200, capabilities::probe_view(*probe));
}

// The sign-in page, or, as for a probe, the server's failure (502).
httpd::HttpResponse page_response(const std::string& name, const Result<std::string>& page) {
  if (!page) {
    return httpd::error_response(
        502, "mcp_server_failed",
        "sign-in to " + name + " failed: " + base::redact(page.error().message));
  }
  return shaped_response(200, protocol::McpLoginStarted{.authorization_url = *page,
                                                        .timeout_ms = sign_in_timeout.count()});
}

// The optional body of a login request.
Result<std::string> scope_of(const httpd::HttpRequest& request) {
  if (request.body.empty()) return std::string();
  auto body = json_body(request);
  if (!body || !body->is_object() || (body->contains("scope") && !(*body)["scope"].is_string()))
    return fail(ErrorCode::invalid_argument, "the body must be {\"scope\": string}");
  return body->value("scope", std::string());
}

// Sign-ins started through the API: at most one per server, so a second
// login or a logout ends the one running.
struct SignIns {
  struct Running {
    std::uint64_t id = 0;
    std::shared_ptr<oauth::OAuthClient> client;
  };
  std::mutex mutex;
  std::uint64_t next_id = 0;
  std::map<std::string, Running> running;

  // The client is kept here while it waits for the browser; the one it
  // replaces is dropped, which stops its listener.
  std::uint64_t replace(const std::string& name, std::shared_ptr<oauth::OAuthClient> client) {
    Running previous;
    std::lock_guard lock(mutex);
    const std::uint64_t id = ++next_id;
    previous = std::exchange(running[name], Running{id, std::move(client)});
    return id;
  }
  // The running sign-in of `name` (only if it is `id`, when given).
  std::shared_ptr<oauth::OAuthClient> take(const std::string& name, std::uint64_t id = 0) {
    std::lock_guard lock(mutex);
    auto found = running.find(name);
    if (found == running.end() || (id != 0 && found->second.id != id)) return {};
    auto client = std::move(found->second.client);
    running.erase(found);
    return client;
  }
};

// Where the sign-in page is handed from the OAuth client to the request
// that started it: the page's URL, or the failure that came first.
struct PageHandoff {
  explicit PageHandoff(const asio::any_io_executor& executor)
      : strand(asio::make_strand(executor)), wake(strand, page_timeout) {}
  asio::strand<asio::any_io_executor> strand;
  asio::steady_timer wake;
  std::optional<std::string> url;
  std::optional<Error> failure;
};

asio::awaitable<Result<std::string>> wait_for_page(std::shared_ptr<PageHandoff> handoff) {
  co_await asio::this_coro::throw_if_cancelled(false);
  if (!handoff->url && !handoff->failure) {
    co_await handoff->wake.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  if (handoff->url) co_return *handoff->url;
  if (handoff->failure) co_return std::unexpected(*handoff->failure);
  co_return fail(ErrorCode::timeout, "the authorization server did not answer in time");
}

// POST /api/mcp/servers/{name}/login: discovery and registration happen
// here; the answer carries the sign-in page for the client to open. The
// browser is then redirected to this server's loopback listener, and the
// sign-in completes in the background (GET /api/mcp/servers: signedIn).
asio::awaitable<void> login(std::shared_ptr<ApiContext> context, std::shared_ptr<SignIns> sign_ins,
                            httpd::Exchange& exchange) {
  const std::string name = exchange.request().params[0];
  auto scope = scope_of(exchange.request());
  if (!scope) {
    httpd::HttpResponse reply = respond_to(std::unexpected(std::move(scope).error()));
    co_await exchange.respond(std::move(reply));
    co_return;
  }
  auto entry = entry_named(*context, name);
  auto executor = co_await asio::this_coro::executor;
  auto handoff = std::make_shared<PageHandoff>(executor);
  oauth::UrlOpener hand_over = [handoff](std::string url) -> asio::awaitable<Result<void>> {
    asio::post(handoff->strand, [handoff, url = std::move(url)]() mutable {
      if (!handoff->url && !handoff->failure) handoff->url = std::move(url);
      handoff->wake.cancel();
    });
    co_return Result<void>{};
  };
  // Started through an SSH tunnel whose client takes redirects on its own
  // machine (the browser's): the redirect goes there and comes back through
  // POST /api/mcp/sign-in-callback.
  std::shared_ptr<oauth::RedirectRelay> relay;
  if (auto port = httpd::loopback_host_port(exchange.request().header("host"))) {
    relay = context->sign_in_relays->for_tunnel(*port);
  }
  Result<std::shared_ptr<oauth::OAuthClient>> client =
      entry
          ? capabilities::sign_in_client(
                executor, *entry, std::make_shared<capabilities::StoredCredentials>(*context->home),
                std::move(hand_over), sign_in_timeout, std::move(relay))
          : Result<std::shared_ptr<oauth::OAuthClient>>(std::unexpected(entry.error()));
  if (!client) {
    httpd::HttpResponse reply = respond_to(std::unexpected(std::move(client).error()));
    co_await exchange.respond(std::move(reply));
    co_return;
  }
  const auto id = sign_ins->replace(name, *client);
  auto on_done = [handoff, sign_ins, name, id](const std::exception_ptr&, Result<void> done) {
    auto finished = sign_ins->take(name, id);
    if (done) spdlog::info("mcp {}: signed in through the API", name);
    asio::post(handoff->strand, [handoff, done = std::move(done), finished]() mutable {
      if (!done && !handoff->url) handoff->failure = done.error();
      handoff->wake.cancel();
      // `finished` (the client) goes here, off its own strand.
    });
  };
  asio::co_spawn(executor, (*client)->login(*scope), std::move(on_done));
  auto page = co_await asio::co_spawn(handoff->strand, wait_for_page(handoff), asio::use_awaitable);
  httpd::HttpResponse reply = page_response(name, page);
  co_await exchange.respond(std::move(reply));
}

Result<httpd::HttpResponse> logout(const ApiContext& context, SignIns& sign_ins,
                                   const httpd::HttpRequest& request) {
  const std::string& name = request.params[0];
  AVA_TRY_VOID(entry_named(context, name));  // only a configured server
  if (auto running = sign_ins.take(name)) (void)running->sign_out();
  capabilities::StoredCredentials credentials(*context.home);
  AVA_TRY(auto was, credentials.signed_in(name));
  AVA_TRY_VOID(credentials.erase(name));
  return shaped_response(200, protocol::McpSignedOut{.signed_out = was});
}

}  // namespace

void add_mcp_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/mcp/servers", answer(with(context, list)));
  router.add("POST", "/api/mcp/servers", answer(with(context, add)));
  router.add("PATCH", "/api/mcp/servers/{name}", answer(with(context, patch)));
  router.add("DELETE", "/api/mcp/servers/{name}", answer(with(context, remove)));
  router.add("PUT", "/api/mcp/servers/{name}/projects/{projectId}",
             answer(with(context, set_in_project)));
  router.add("DELETE", "/api/mcp/servers/{name}/projects/{projectId}",
             answer(with(context, clear_in_project)));
  // A fresh connection, not the shared one: it reports the server as
  // configured now.
  router.add("POST", "/api/mcp/servers/{name}/test",
             [context](httpd::Exchange& exchange) -> asio::awaitable<void> {
               const std::string name = exchange.request().params[0];
               auto entry = entry_named(*context, name);
               if (!entry) {
                 httpd::HttpResponse reply = respond_to(std::unexpected(std::move(entry).error()));
                 co_await exchange.respond(std::move(reply));
                 co_return;
               }
               auto executor = co_await asio::this_coro::executor;
               auto probe = co_await capabilities::probe_server(executor, std::move(*entry),
                                                                *context->home, test_timeout);
               httpd::HttpResponse reply = probe_response(name, probe);
               co_await exchange.respond(std::move(reply));
             });
  // A tunnel's client hands over a sign-in redirect it took on its machine.
  router.add("POST", "/api/mcp/sign-in-callback",
             answer([relays = context->sign_in_relays](
                        const httpd::HttpRequest& request) -> Result<httpd::HttpResponse> {
               AVA_TRY(auto body, json_body(request));
               AVA_TRY(const auto callback,
                       protocol::from_json<protocol::SignInCallbackRequest>(body));
               if (!relays->deliver(callback.query)) {
                 return fail(ErrorCode::conflict, "no sign-in is waiting for this redirect");
               }
               return httpd::HttpResponse{.status = 204};
             }));
  auto sign_ins = std::make_shared<SignIns>();
  router.add("POST", "/api/mcp/servers/{name}/login",
             [context, sign_ins](httpd::Exchange& exchange) -> asio::awaitable<void> {
               co_await login(context, sign_ins, exchange);
             });
  router.add("POST", "/api/mcp/servers/{name}/logout",
             answer([context, sign_ins](const httpd::HttpRequest& request) {
               return logout(*context, *sign_ins, request);
             }));
}

}  // namespace ava::server
