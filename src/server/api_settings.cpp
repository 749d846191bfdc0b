// Models and settings: the providers as the server sees them (never a key),
// the model catalog, and the settings page's changes (a provider's entry in
// settings.json, its key in auth.json).
#include <nlohmann/json.hpp>

#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

bool runs_locally(llm::ProviderKind kind) {
  return kind == llm::ProviderKind::ollama || kind == llm::ProviderKind::lmstudio ||
         kind == llm::ProviderKind::llamacpp || kind == llm::ProviderKind::mock;
}

nlohmann::json provider_json(const llm::Settings& settings, const std::string& name) {
  nlohmann::json out{{"name", name}};
  out["keySaved"] = settings.keys.contains(name);
  auto resolved = llm::resolve_provider(settings, name, false);
  if (!resolved) {
    out["configured"] = false;
    out["problem"] = resolved.error().message;
    return out;
  }
  llm::ProviderChoice choice;
  choice.provider = name;
  out["kind"] = llm::to_string(resolved->kind);
  out["baseUrl"] = resolved->base_url;
  out["model"] = llm::choose_model(settings, choice, *resolved);
  // Whether it can be used, never the key itself.
  out["configured"] = runs_locally(resolved->kind) || !resolved->api_key.empty();
  if (!resolved->key_variable.empty()) out["keyVariable"] = resolved->key_variable;
  return out;
}

httpd::HttpResponse models(const ApiContext& context, const httpd::HttpRequest&) {
  const auto settings = context.settings->current();
  nlohmann::json providers = nlohmann::json::array();
  for (const auto& name : llm::provider_names(*settings))
    providers.push_back(provider_json(*settings, name));
  nlohmann::json catalog = nlohmann::json::array();
  for (const auto& model : llm::model_catalog()) {
    const auto info = llm::model_info(model.id, settings.get());
    catalog.push_back({{"id", info.id},
                       {"providerKind", info.provider_kind},
                       {"contextWindow", info.context_window},
                       {"maxOutput", info.max_output},
                       {"inputPerMTok", info.input_per_mtok},
                       {"outputPerMTok", info.output_per_mtok},
                       {"tools", info.tools},
                       {"images", info.images},
                       {"thinking", info.thinking}});
  }
  return httpd::json_response(200, {{"defaultProvider", llm::default_provider_name(*settings)},
                                    {"providers", std::move(providers)},
                                    {"models", std::move(catalog)}});
}

httpd::HttpResponse settings_view(const ApiContext& context, const httpd::HttpRequest&) {
  const auto settings = context.settings->current();
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& [model, entry] : settings->models) {
    nlohmann::json item = nlohmann::json::object();
    if (entry.context_window) item["contextWindow"] = *entry.context_window;
    if (entry.max_output) item["maxOutput"] = *entry.max_output;
    overrides[model] = std::move(item);
  }
  nlohmann::json saved = nlohmann::json::array();
  for (const auto& [provider, key] : settings->keys)
    saved.push_back(provider);  // names only, never keys
  return httpd::json_response(200, {{"provider", settings->provider},
                                    {"model", settings->model},
                                    {"models", std::move(overrides)},
                                    {"savedKeys", std::move(saved)},
                                    {"settingsFile", settings->settings_file.string()}});
}

httpd::HttpResponse save_provider(const ApiContext& context, const httpd::HttpRequest& request) {
  auto body = json_body(request);
  if (!body) return httpd::error_response(body.error());
  auto parsed = protocol::parse_provider_update(*body);
  if (!parsed) return httpd::error_response(parsed.error());
  const std::string& name = request.params[0];
  const llm::ProviderUpdate update{
      .kind = parsed->kind, .base_url = parsed->base_url, .model = parsed->model};
  std::optional<base::Secret> key;
  if (parsed->api_key) key.emplace(std::move(*parsed->api_key));
  auto saved = context.settings->save_provider(name, update, key);
  if (!saved) return httpd::error_response(saved.error());
  auto after = provider_json(*context.settings->current(), name);
  context.status->publish({{"type", "catalog"}, {"action", "provider"}, {"provider", after}});
  return httpd::json_response(200, after);
}

httpd::HttpResponse remove_key(const ApiContext& context, const httpd::HttpRequest& request) {
  const std::string& name = request.params[0];
  auto removed = context.settings->remove_key(name);
  if (!removed) return httpd::error_response(removed.error());
  auto after = provider_json(*context.settings->current(), name);
  context.status->publish({{"type", "catalog"}, {"action", "provider"}, {"provider", after}});
  return httpd::json_response(200, after);
}

}  // namespace

void add_settings_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/models", answer(with(context, models)));
  router.add("GET", "/api/settings", answer(with(context, settings_view)));
  router.add("PUT", "/api/settings/providers/{name}", answer(with(context, save_provider)));
  router.add("DELETE", "/api/settings/providers/{name}/key", answer(with(context, remove_key)));
}

}  // namespace ava::server
