// /api/projects: registered folders that conversations work in.
#include "server/api.hpp"

namespace ava::server {
namespace {

Result<httpd::HttpResponse> list(const ApiContext& context, const httpd::HttpRequest&) {
  return shaped_response(200, protocol::ProjectList{.projects = context.registry->projects()});
}

Result<httpd::HttpResponse> add(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_create_project(body));
  AVA_TRY(auto created, context.registry->add_project(parsed.path, parsed.name));
  context.status->publish(protocol::CatalogMessage{.action = "project", .project = created});
  return shaped_response(201, created);
}

Result<httpd::HttpResponse> show(const ApiContext& context, const httpd::HttpRequest& request) {
  auto project = context.registry->project(request.params[0]);
  if (!project) return fail(ErrorCode::not_found, "no such project");
  return shaped_response(200, *project);
}

Result<httpd::HttpResponse> remove(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY_VOID(context.registry->remove_project(request.params[0]));
  return shaped_response(200, protocol::Removed{});
}

}  // namespace

void add_project_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/projects", answer(with(context, list)));
  router.add("POST", "/api/projects", answer(with(context, add)));
  router.add("GET", "/api/projects/{id}", answer(with(context, show)));
  router.add("DELETE", "/api/projects/{id}", answer(with(context, remove)));
}

}  // namespace ava::server
