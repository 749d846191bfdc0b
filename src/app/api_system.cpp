// Health, identity, process status, models, settings, usage and shutdown.
#include <nlohmann/json.hpp>

#include "app/api.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"

namespace ava::app {
namespace {

nlohmann::json provider_json(const llm::Settings& settings, const std::string& name) {
  nlohmann::json out{{"name", name}};
  auto resolved = llm::resolve_provider(settings, name, false);
  if (!resolved) {
    out["configured"] = false;
    out["problem"] = resolved.error().message;
    return out;
  }
  const bool local = resolved->kind == llm::ProviderKind::ollama ||
                     resolved->kind == llm::ProviderKind::lmstudio ||
                     resolved->kind == llm::ProviderKind::llamacpp ||
                     resolved->kind == llm::ProviderKind::mock;
  llm::ProviderChoice choice;
  choice.provider = name;
  out["kind"] = llm::to_string(resolved->kind);
  out["baseUrl"] = resolved->base_url;
  out["model"] = llm::choose_model(settings, choice, *resolved);
  out["configured"] = local || !resolved->api_key.empty();  // never the key itself
  return out;
}

HttpResponse health(const ApiContext& context, const HttpRequest&) {
  const auto& info = context.info;
  return json_response(200, {{"ok", true},
                             {"mode", info.mode},
                             {"version", info.version},
                             {"machineId", info.machine.machine_id},
                             {"pid", info.pid},
                             {"startedMs", info.started_ms}});
}

HttpResponse machine(const ApiContext& context, const HttpRequest&) {
  const auto& identity = context.info.machine;
  return json_response(200, {{"machineId", identity.machine_id},
                             {"hostname", identity.hostname},
                             {"createdMs", identity.created_ms}});
}

HttpResponse process_status(const ApiContext& context, const HttpRequest&) {
  nlohmann::json loaded = nlohmann::json::array();
  std::size_t active = 0;
  for (const auto& live : context.host->loaded()) {
    const auto status = live->agent->status();
    if (status.state != agent::DriverState::idle && status.state != agent::DriverState::closed)
      ++active;
    nlohmann::json item = status_json(status);
    item["conversationId"] = live->id;
    loaded.push_back(std::move(item));
  }
  return json_response(200, {{"mode", context.info.mode},
                             {"pid", context.info.pid},
                             {"conversations", context.registry->conversation_count()},
                             {"loaded", std::move(loaded)},
                             {"active", active}});
}

HttpResponse models(const ApiContext& context, const HttpRequest&) {
  const auto& settings = *context.settings;
  nlohmann::json providers = nlohmann::json::array();
  for (const auto& name : llm::provider_names(settings))
    providers.push_back(provider_json(settings, name));
  nlohmann::json catalog = nlohmann::json::array();
  for (const auto& model : llm::model_catalog()) {
    const auto info = llm::model_info(model.id, &settings);
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
  return json_response(200, {{"defaultProvider", llm::default_provider_name(settings)},
                             {"providers", std::move(providers)},
                             {"models", std::move(catalog)}});
}

HttpResponse settings_view(const ApiContext& context, const HttpRequest&) {
  const auto& settings = *context.settings;
  nlohmann::json overrides = nlohmann::json::object();
  for (const auto& [model, entry] : settings.models) {
    nlohmann::json item = nlohmann::json::object();
    if (entry.context_window) item["contextWindow"] = *entry.context_window;
    if (entry.max_output) item["maxOutput"] = *entry.max_output;
    overrides[model] = std::move(item);
  }
  nlohmann::json saved = nlohmann::json::array();
  for (const auto& [provider, key] : settings.keys)
    saved.push_back(provider);  // names only, never keys
  return json_response(200, {{"provider", settings.provider},
                             {"model", settings.model},
                             {"models", std::move(overrides)},
                             {"savedKeys", std::move(saved)},
                             {"settingsFile", settings.settings_file.string()}});
}

protocol::TokenTotals usage_of(const ApiContext& context,
                               const protocol::Conversation& conversation) {
  if (auto live = context.host->find_loaded(conversation.id))
    return totals_of(live->agent->status().usage);
  return conversation.usage;
}

HttpResponse usage(const ApiContext& context, const HttpRequest&) {
  nlohmann::json items = nlohmann::json::array();
  protocol::TokenTotals total;
  for (const auto& conversation : context.registry->conversations({})) {
    const auto totals = usage_of(context, conversation);
    total.input += totals.input;
    total.output += totals.output;
    total.cache_read += totals.cache_read;
    total.cache_write += totals.cache_write;
    items.push_back({{"conversationId", conversation.id}, {"usage", protocol::to_json(totals)}});
  }
  return json_response(200,
                       {{"total", protocol::to_json(total)}, {"conversations", std::move(items)}});
}

HttpResponse conversation_usage(const ApiContext& context, const HttpRequest& request) {
  auto conversation = context.registry->conversation(request.params[0]);
  if (!conversation) return error_response(404, "not_found", "no such conversation");
  nlohmann::json out{{"conversationId", conversation->id},
                     {"usage", protocol::to_json(usage_of(context, *conversation))}};
  if (auto live = context.host->find_loaded(conversation->id)) {
    const auto status = live->agent->status();
    const auto model = llm::model_info(status.model, context.settings.get());
    if (model.known) out["costUsd"] = llm::cost_usd(model, status.usage);
  }
  return json_response(200, out);
}

}  // namespace

void add_system_routes(Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/health", answer(with(context, health)));
  router.add("GET", "/api/machine", answer(with(context, machine)));
  router.add("GET", "/api/status", answer(with(context, process_status)));
  router.add("GET", "/api/models", answer(with(context, models)));
  router.add("GET", "/api/settings", answer(with(context, settings_view)));
  router.add("GET", "/api/usage", answer(with(context, usage)));
  router.add("GET", "/api/conversations/{id}/usage", answer(with(context, conversation_usage)));
  if (context->request_shutdown) {
    router.add("POST", "/api/shutdown",
               [context](Exchange& exchange) -> boost::asio::awaitable<void> {
                 HttpResponse accepted =
                     json_response(202, nlohmann::json::parse(R"({"stopping": true})"));
                 co_await exchange.respond(std::move(accepted));
                 context->request_shutdown();
               });
  }
}

}  // namespace ava::app
