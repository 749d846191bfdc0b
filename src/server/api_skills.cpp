// /api/skills: the skills agents find and their switches in
// capabilities.sqlite3, as `ava skill` manages them (docs/skills.md).
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/skill_availability.hpp"
#include "ava/protocol/wire.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

using nlohmann::json;

// The scope of a request: a registered project's folder, or the user-wide view.
struct Scope {
  std::optional<std::filesystem::path> folder;
  std::string project_id;
};

Result<Scope> scope_of(const ApiContext& context, const std::string& project_id) {
  if (project_id.empty()) return Scope{};
  auto project = context.registry->project(project_id);
  if (!project) return fail(ErrorCode::not_found, "no project " + project_id);
  return Scope{.folder = std::filesystem::path(project->path), .project_id = project_id};
}

httpd::HttpResponse listing(const base::Home& home, const capabilities::CapabilitiesStore& store,
                            const Scope& scope, int status) {
  auto skills = capabilities::list_skills(home, store, scope.folder);
  if (!skills) return httpd::error_response(skills.error());
  json items = json::array();
  for (const auto& skill : *skills) items.push_back(to_json(skill));
  json body{{"skills", std::move(items)}};
  if (!scope.project_id.empty()) body["projectId"] = scope.project_id;
  return httpd::json_response(status, body);
}

httpd::HttpResponse list(const ApiContext& context, const httpd::HttpRequest& request) {
  if (!context.home) return httpd::error_response(503, "unavailable", "no home");
  auto scope = scope_of(context, std::string(request.query_value("projectId").value_or("")));
  if (!scope) return httpd::error_response(scope.error());
  auto store = capabilities::CapabilitiesStore::open(*context.home);
  if (!store) return httpd::error_response(store.error());
  return listing(*context.home, *store, *scope, 200);
}

// A switch for a skill this scope does not find is refused (a typo would
// otherwise be kept silently), except removing one that exists.
httpd::HttpResponse update(const ApiContext& context, const httpd::HttpRequest& request) {
  if (!context.home) return httpd::error_response(503, "unavailable", "no home");
  auto body = json_body(request);
  if (!body) return httpd::error_response(body.error());
  auto change = protocol::parse_skill_update(*body);
  if (!change) return httpd::error_response(change.error());
  auto scope = scope_of(context, change->project_id);
  if (!scope) return httpd::error_response(scope.error());
  auto store = capabilities::CapabilitiesStore::open(*context.home);
  if (!store) return httpd::error_response(store.error());

  const std::string& name = request.params[0];
  const std::string key =
      scope->folder ? capabilities::skill_project_key(*scope->folder) : std::string();
  auto known = capabilities::list_skills(*context.home, *store, scope->folder);
  if (!known) return httpd::error_response(known.error());
  bool found = false;
  std::string names;
  for (const auto& skill : *known) {
    found = found || skill.skill.name == name;
    names += (names.empty() ? "" : ", ") + skill.skill.name;
  }
  if (!found && !change->enabled) {
    auto existing = store->skill_enabled(name, key);
    if (!existing) return httpd::error_response(existing.error());
    found = existing->has_value();
  }
  if (!found) {
    return httpd::error_response(404, "not_found",
                                 "no skill named " + name + " here; known: " +
                                     (names.empty() ? std::string("none") : names));
  }
  if (auto set = store->set_skill_enabled(name, key, change->enabled); !set)
    return httpd::error_response(set.error());
  return listing(*context.home, *store, *scope, 200);
}

}  // namespace

void add_skill_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/skills", answer(with(context, list)));
  router.add("PUT", "/api/skills/{name}", answer(with(context, update)));
}

}  // namespace ava::server
