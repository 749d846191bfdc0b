// /api/projects: registered folders that conversations work in.
#include <nlohmann/json.hpp>

#include "app/api.hpp"

namespace ava::app {

void add_project_routes(Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/projects", answer([context](const HttpRequest&) {
               nlohmann::json list = nlohmann::json::array();
               for (const auto& project : context->registry->projects())
                 list.push_back(protocol::to_json(project));
               return json_response(200, {{"projects", std::move(list)}});
             }));

  router.add(
      "POST", "/api/projects", answer([context](const HttpRequest& request) {
        auto body = json_body(request);
        if (!body) return error_response(body.error());
        auto parsed = protocol::parse_create_project(*body);
        if (!parsed) return error_response(parsed.error());
        auto created = context->registry->add_project(parsed->path, parsed->name);
        if (!created) return error_response(created.error());
        context->status->publish(
            {{"type", "catalog"}, {"action", "project"}, {"project", protocol::to_json(*created)}});
        return json_response(201, protocol::to_json(*created));
      }));

  router.add("GET", "/api/projects/{id}", answer([context](const HttpRequest& request) {
               auto project = context->registry->project(request.params[0]);
               if (!project) return error_response(404, "not_found", "no such project");
               return json_response(200, protocol::to_json(*project));
             }));

  router.add("DELETE", "/api/projects/{id}", answer([context](const HttpRequest& request) {
               auto removed = context->registry->remove_project(request.params[0]);
               if (!removed) return error_response(removed.error());
               return json_response(200, {{"removed", true}});
             }));
}

}  // namespace ava::app
