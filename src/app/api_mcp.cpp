// /api/mcp/servers: the MCP servers of capabilities.sqlite3, as `ava mcp`
// manages them. Secrets (env and header values) are never sent back.
#include <boost/asio/this_coro.hpp>
#include <nlohmann/json.hpp>

#include "app/api.hpp"
#include "app/capabilities_store.hpp"

namespace ava::app {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr std::chrono::milliseconds test_timeout{30'000};

Result<CapabilitiesStore> store_of(const ApiContext& context) {
  if (!context.home) return fail(ErrorCode::unavailable, "no home");
  return CapabilitiesStore::open(*context.home);
}

json server_json(const McpServerEntry& entry, const std::optional<protocol::Project>& project) {
  json out = to_json(entry, false);
  if (project) out["enabledHere"] = enabled_for(entry, project->path);
  return out;
}

HttpResponse list(const ApiContext& context, const HttpRequest& request) {
  std::optional<protocol::Project> project;
  if (auto id = request.query_value("project")) {
    project = context.registry->project(std::string(*id));
    if (!project) return error_response(404, "not_found", "no such project");
  }
  auto store = store_of(context);
  if (!store) return error_response(store.error());
  auto servers = store->servers();
  if (!servers) return error_response(servers.error());
  json items = json::array();
  for (const auto& entry : *servers) items.push_back(server_json(entry, project));
  return json_response(200, {{"servers", std::move(items)}});
}

HttpResponse add(const ApiContext& context, const HttpRequest& request) {
  auto body = json_body(request);
  if (!body) return error_response(body.error());
  if (!body->is_object() || !body->contains("name") || !(*body)["name"].is_string())
    return error_response(400, "invalid_argument", "name must be a string");
  auto entry = entry_from_json((*body)["name"].get<std::string>(), *body);
  if (!entry) return error_response(entry.error());
  entry->source = "api";
  const bool replace = body->value("replace", false);
  auto store = store_of(context);
  if (!store) return error_response(store.error());
  if (auto added = store->add_server(*entry, replace); !added) return error_response(added.error());
  auto stored = store->server(entry->name);
  if (!stored || !*stored) return error_response(500, "internal", "the server was not stored");
  return json_response(201, server_json(**stored, std::nullopt));
}

Result<std::optional<bool>> enabled_of(const HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  if (!body.is_object() || !body.contains("enabled") || !body["enabled"].is_boolean())
    return fail(ErrorCode::invalid_argument, "enabled must be true or false");
  return std::optional<bool>(body["enabled"].get<bool>());
}

HttpResponse patch(const ApiContext& context, const HttpRequest& request) {
  auto enabled = enabled_of(request);
  if (!enabled) return error_response(enabled.error());
  auto store = store_of(context);
  if (!store) return error_response(store.error());
  auto entry = store->set_enabled(request.params[0], std::nullopt, *enabled);
  if (!entry) return error_response(entry.error());
  return json_response(200, server_json(*entry, std::nullopt));
}

HttpResponse remove(const ApiContext& context, const HttpRequest& request) {
  auto store = store_of(context);
  if (!store) return error_response(store.error());
  if (auto removed = store->remove_server(request.params[0]); !removed)
    return error_response(removed.error());
  return json_response(200, {{"removed", true}});
}

HttpResponse switch_in_project(const ApiContext& context, const HttpRequest& request,
                               std::optional<bool> enabled) {
  auto project = context.registry->project(request.params[1]);
  if (!project) return error_response(404, "not_found", "no such project");
  auto store = store_of(context);
  if (!store) return error_response(store.error());
  auto entry = store->set_enabled(request.params[0], std::filesystem::path(project->path), enabled);
  if (!entry) return error_response(entry.error());
  return json_response(200, server_json(*entry, project));
}

HttpResponse set_in_project(const ApiContext& context, const HttpRequest& request) {
  auto enabled = enabled_of(request);
  if (!enabled) return error_response(enabled.error());
  return switch_in_project(context, request, *enabled);
}

HttpResponse clear_in_project(const ApiContext& context, const HttpRequest& request) {
  return switch_in_project(context, request, std::nullopt);
}

Result<McpServerEntry> entry_named(const ApiContext& context, const std::string& name) {
  AVA_TRY(auto store, store_of(context));
  AVA_TRY(auto entry, store.server(name));
  if (!entry) return fail(ErrorCode::not_found, "no MCP server named " + name);
  return std::move(*entry);
}

HttpResponse probe_response(const std::string& name, const Result<McpProbe>& probe) {
  if (!probe) {
    // The server failed, not this request: 502 with the reason.
    return error_response(502, "mcp_server_failed",
                          "server " + name + ": " + probe.error().message);
  }
  return json_response(200, to_json(*probe));
}

}  // namespace

void add_mcp_routes(Router& router, const std::shared_ptr<ApiContext>& context) {
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
             [context](Exchange& exchange) -> asio::awaitable<void> {
               const std::string name = exchange.request().params[0];
               auto entry = entry_named(*context, name);
               if (!entry) {
                 HttpResponse reply = error_response(entry.error());
                 co_await exchange.respond(std::move(reply));
                 co_return;
               }
               auto executor = co_await asio::this_coro::executor;
               auto probe =
                   co_await probe_server(executor, std::move(*entry), *context->home, test_timeout);
               HttpResponse reply = probe_response(name, probe);
               co_await exchange.respond(std::move(reply));
             });
}

}  // namespace ava::app
