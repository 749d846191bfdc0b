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

Result<httpd::HttpResponse> listing(const base::Home& home,
                                    const capabilities::CapabilitiesStore& store,
                                    const Scope& scope, int status) {
  AVA_TRY(auto skills, capabilities::list_skills(home, store, scope.folder));
  protocol::SkillList list;
  for (const auto& skill : skills) list.skills.push_back(capabilities::skill_info(skill));
  if (!scope.project_id.empty()) list.project_id = scope.project_id;
  return shaped_response(status, list);
}

Result<httpd::HttpResponse> list(const ApiContext& context, const httpd::HttpRequest& request) {
  if (!context.home) return fail(ErrorCode::unavailable, "no home");
  AVA_TRY(auto scope,
          scope_of(context, std::string(request.query_value("projectId").value_or(""))));
  AVA_TRY(auto store, capabilities::CapabilitiesStore::open(*context.home));
  return listing(*context.home, store, scope, 200);
}

// A switch for a skill this scope does not find is refused (a typo would
// otherwise be kept silently), except removing one that exists.
Result<httpd::HttpResponse> update(const ApiContext& context, const httpd::HttpRequest& request) {
  if (!context.home) return fail(ErrorCode::unavailable, "no home");
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto change, protocol::parse_skill_update(body));
  AVA_TRY(auto scope, scope_of(context, change.project_id));
  AVA_TRY(auto store, capabilities::CapabilitiesStore::open(*context.home));

  const std::string& name = request.params[0];
  const std::string key =
      scope.folder ? capabilities::skill_project_key(*scope.folder) : std::string();
  AVA_TRY(auto known, capabilities::list_skills(*context.home, store, scope.folder));
  bool found = false;
  std::string names;
  for (const auto& skill : known) {
    found = found || skill.skill.name == name;
    names += (names.empty() ? "" : ", ") + skill.skill.name;
  }
  if (!found && !change.enabled) {
    AVA_TRY(auto existing, store.skill_enabled(name, key));
    found = existing.has_value();
  }
  if (!found) {
    return fail(ErrorCode::not_found, "no skill named " + name + " here; known: " +
                                          (names.empty() ? std::string("none") : names));
  }
  AVA_TRY_VOID(store.set_skill_enabled(name, key, change.enabled));
  return listing(*context.home, store, scope, 200);
}

}  // namespace

void add_skill_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/skills", answer(with(context, list)));
  router.add("PUT", "/api/skills/{name}", answer(with(context, update)));
}

}  // namespace ava::server
