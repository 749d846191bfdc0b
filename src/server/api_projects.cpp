// /api/projects: registered folders that conversations work in.
#include <nlohmann/json.hpp>

#include "server/api.hpp"

namespace ava::server {

void add_project_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/projects", answer([context](const httpd::HttpRequest&) {
               nlohmann::json list = nlohmann::json::array();
               for (const auto& project : context->registry->projects())
                 list.push_back(protocol::to_json(project));
               return httpd::json_response(200, {{"projects", std::move(list)}});
             }));

  router.add(
      "POST", "/api/projects", answer([context](const httpd::HttpRequest& request) {
        auto body = json_body(request);
        if (!body) return httpd::error_response(body.error());
        auto parsed = protocol::parse_create_project(*body);
        if (!parsed) return httpd::error_response(parsed.error());
        auto created = context->registry->add_project(parsed->path, parsed->name);
        if (!created) return httpd::error_response(created.error());
        context->status->publish(
            {{"type", "catalog"}, {"action", "project"}, {"project", protocol::to_json(*created)}});
        return httpd::json_response(201, protocol::to_json(*created));
      }));

  router.add("GET", "/api/projects/{id}", answer([context](const httpd::HttpRequest& request) {
               auto project = context->registry->project(request.params[0]);
               if (!project) return httpd::error_response(404, "not_found", "no such project");
               return httpd::json_response(200, protocol::to_json(*project));
             }));

  router.add("DELETE", "/api/projects/{id}", answer([context](const httpd::HttpRequest& request) {
               auto removed = context->registry->remove_project(request.params[0]);
               if (!removed) return httpd::error_response(removed.error());
               return httpd::json_response(200, {{"removed", true}});
             }));
}

}  // namespace ava::server
