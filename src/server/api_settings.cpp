// Models and settings: the providers as the server sees them (never a key),
// the model catalog, and the settings page's changes (a provider's entry in
// settings.json, its key in auth.json).
#include <nlohmann/json.hpp>

#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"
#include "ava/llm/model_list.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

bool runs_locally(llm::ProviderKind kind) {
  return kind == llm::ProviderKind::ollama || kind == llm::ProviderKind::lmstudio ||
         kind == llm::ProviderKind::llamacpp || kind == llm::ProviderKind::mock;
}

protocol::ProviderInfo provider_info(const llm::Settings& settings, const std::string& name) {
  protocol::ProviderInfo out{.name = name, .key_saved = settings.keys.contains(name)};
  auto resolved = llm::resolve_provider(settings, name, false);
  if (!resolved) {
    out.problem = resolved.error().message;
    return out;
  }
  llm::ProviderChoice choice;
  choice.provider = name;
  out.kind = std::string(llm::to_string(resolved->kind));
  out.base_url = resolved->base_url;
  out.model = llm::choose_model(settings, choice, *resolved);
  // Whether it can be used, never the key itself.
  out.configured =
      runs_locally(resolved->kind) || !resolved->api_key.empty() || !resolved->login_file.empty();
  if (!resolved->key_variable.empty()) out.key_variable = resolved->key_variable;
  return out;
}

Result<httpd::HttpResponse> models(const ApiContext& context, const httpd::HttpRequest&) {
  const auto settings = context.settings->current();
  protocol::ModelsResponse view{
      .default_provider = llm::default_provider_name(*settings), .providers = {}, .models = {}};
  for (const auto& name : llm::provider_names(*settings))
    view.providers.push_back(provider_info(*settings, name));
  view.needs_setup = context.settings->needs_setup();
  const auto detected = context.settings->detected();
  const auto* in_use = view.needs_setup ? llm::first_serving(detected) : nullptr;
  for (const auto& answer : detected) {
    // One running without a model is listed too: the panel says how to get one.
    if (!answer.reachable) continue;
    view.detected.push_back({.name = answer.source.provider,
                             .kind = std::string(llm::to_string(answer.source.kind)),
                             .base_url = answer.source.base_url,
                             .models = answer.models,
                             .in_use = &answer == in_use});
  }
  for (const auto& model : llm::model_catalog()) {
    const auto info = llm::model_info(model.id, settings.get());
    view.models.push_back({.id = info.id,
                           .provider_kind = info.provider_kind,
                           .context_window = static_cast<std::int64_t>(info.context_window),
                           .max_output = static_cast<std::int64_t>(info.max_output),
                           .input_per_mtok = info.input_per_mtok,
                           .output_per_mtok = info.output_per_mtok,
                           .tools = info.tools,
                           .images = info.images,
                           .thinking = info.thinking});
  }
  return shaped_response(200, view);
}

Result<httpd::HttpResponse> settings_view(const ApiContext& context, const httpd::HttpRequest&) {
  const auto settings = context.settings->current();
  protocol::SettingsResponse view{.provider = settings->provider,
                                  .model = settings->model,
                                  .models = {},
                                  .saved_keys = {},
                                  .settings_file = settings->settings_file.string()};
  for (const auto& [model, entry] : settings->models) {
    view.models[model] = {.context_window = entry.context_window, .max_output = entry.max_output};
  }
  for (const auto& [provider, key] : settings->keys)
    view.saved_keys.push_back(provider);  // names only, never keys
  return shaped_response(200, view);
}

Result<httpd::HttpResponse> save_provider(const ApiContext& context,
                                          const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_provider_update(body));
  const std::string& name = request.params[0];
  const llm::ProviderUpdate update{.kind = parsed.kind,
                                   .base_url = parsed.base_url,
                                   .model = parsed.model,
                                   .make_default = parsed.make_default.value_or(false)};
  std::optional<base::Secret> key;
  if (parsed.api_key) key.emplace(std::move(*parsed.api_key));
  AVA_TRY_VOID(context.settings->save_provider(name, update, key));
  auto after = provider_info(*context.settings->current(), name);
  context.status->publish(protocol::CatalogMessage{.action = "provider", .provider = after});
  return shaped_response(200, after);
}

Result<httpd::HttpResponse> remove_key(const ApiContext& context,
                                       const httpd::HttpRequest& request) {
  const std::string& name = request.params[0];
  AVA_TRY_VOID(context.settings->remove_key(name));
  auto after = provider_info(*context.settings->current(), name);
  context.status->publish(protocol::CatalogMessage{.action = "provider", .provider = after});
  return shaped_response(200, after);
}

}  // namespace

void add_settings_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/models", answer(with(context, models)));
  router.add("GET", "/api/settings", answer(with(context, settings_view)));
  router.add("PUT", "/api/settings/providers/{name}", answer(with(context, save_provider)));
  router.add("DELETE", "/api/settings/providers/{name}/key", answer(with(context, remove_key)));
}

}  // namespace ava::server
