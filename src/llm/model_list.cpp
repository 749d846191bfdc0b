// Model listings for `ava models`: which providers to ask, the request each
// one understands, and the ids in its reply.

#include "ava/llm/model_list.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"
#include "ava/transport/proxy.hpp"
#include "ava/transport/url.hpp"

#include "ollama_host.hpp"

namespace ava::llm {

namespace asio = boost::asio;

namespace {

constexpr ProviderKind local_kinds[] = {ProviderKind::ollama, ProviderKind::lmstudio,
                                        ProviderKind::llamacpp};

std::string env_value(const base::EnvLookup& env, const char* name) {
  auto value = env(name);
  return value ? *value : std::string();
}

bool selected_elsewhere(const Settings& settings, std::string_view name, std::string_view in_use) {
  return name == in_use || settings.providers.contains(name);
}

}  // namespace

std::string ollama_root(std::string_view base_url) {
  while (base_url.ends_with('/')) base_url.remove_suffix(1);
  if (base_url.ends_with("/v1")) base_url.remove_suffix(3);
  return std::string(base_url);
}

Result<std::vector<LocalProbe>> local_probes(const base::EnvLookup& env) {
  std::string setting = env_value(env, "AVA_LOCAL_PROBE");
  std::vector<LocalProbe> probes;
  if (setting == "0" || setting == "off") return probes;
  if (setting.empty() || setting == "1") {
    for (auto kind : local_kinds) {
      // Ollama where OLLAMA_HOST says it listens.
      std::string base = kind == ProviderKind::ollama
                             ? ollama_base_url(env_value(env, "OLLAMA_HOST"))
                             : std::string();
      if (base.empty() || !transport::Url::parse(base)) base = std::string(default_base_url(kind));
      probes.push_back({kind, std::move(base)});
    }
    return probes;
  }
  std::size_t at = 0;
  while (at < setting.size()) {
    std::size_t end = std::min(setting.find(',', at), setting.size());
    std::string_view item = std::string_view(setting).substr(at, end - at);
    at = end + 1;
    auto equals = item.find('=');
    auto kind = parse_provider_kind(item.substr(0, equals));
    if (equals == std::string_view::npos || !kind ||
        std::ranges::find(local_kinds, *kind) == std::end(local_kinds)) {
      return fail(
          ErrorCode::invalid_argument,
          fmt::format("AVA_LOCAL_PROBE: '{}' is not ollama|lmstudio|llamacpp=HOST:PORT", item));
    }
    std::string base = fmt::format("http://{}/v1", item.substr(equals + 1));
    AVA_TRY_VOID(transport::Url::parse(base));
    probes.push_back({*kind, std::move(base)});
  }
  return probes;
}

std::vector<ModelSource> model_sources(const Settings& settings,
                                       const std::vector<LocalProbe>& probes) {
  std::string in_use = default_provider_name(settings);
  std::vector<std::string> names;
  auto add = [&](std::string name) {
    if (!name.empty() && std::ranges::find(names, name) == names.end())
      names.push_back(std::move(name));
  };
  add(in_use);
  for (const std::string& name : provider_names(settings)) {
    auto kind = parse_provider_kind(name);
    if (!kind || selected_elsewhere(settings, name, in_use)) {
      add(name);
    } else if (name == "anthropic" || name == "openai") {
      // Cloud providers are listed when a key makes them usable.
      auto resolved = resolve_provider(settings, name, false);
      if (resolved && (!resolved->api_key.empty() || !resolved->headers.empty())) add(name);
    }
  }
  std::vector<ModelSource> sources;
  for (const std::string& name : names) {
    ModelSource source{.provider = name, .in_use = name == in_use};
    auto resolved = resolve_provider(settings, name, name == in_use);
    if (!resolved) {
      source.error = resolved.error().message;
    } else {
      source.kind = resolved->kind;
      source.base_url = resolved->base_url;
      source.api_key = resolved->api_key;
      source.headers = resolved->headers;
      // What Ava would use: for the provider in use, the same choice as
      // make_provider makes with nothing chosen.
      source.default_model =
          name == in_use ? choose_model(settings, {}, *resolved) : resolved->model;
    }
    sources.push_back(std::move(source));
  }
  for (const LocalProbe& probe : probes) {
    std::string name(to_string(probe.kind));
    if (std::ranges::find(names, name) != names.end()) continue;
    sources.push_back(ModelSource{.provider = name,
                                  .kind = probe.kind,
                                  .base_url = probe.base_url,
                                  .default_model = std::string(default_model(probe.kind)),
                                  .configured = false});
  }
  return sources;
}

transport::HttpRequest models_request(const ModelSource& source) {
  transport::HttpRequest request{.method = "GET", .headers = {{"accept", "application/json"}}};
  if (source.kind == ProviderKind::anthropic) {
    request.url = transport::join_url(source.base_url, "/v1/models?limit=1000");
    request.headers.push_back({"anthropic-version", "2023-06-01"});
    if (!source.api_key.empty()) request.headers.push_back({"x-api-key", source.api_key.reveal()});
  } else if (source.kind == ProviderKind::ollama) {
    request.url = transport::join_url(ollama_root(source.base_url), "/api/tags");
  } else {
    request.url = transport::join_url(source.base_url, "/models");
    if (!source.api_key.empty())
      request.headers.push_back({"authorization", "Bearer " + source.api_key.reveal()});
  }
  for (const auto& header : source.headers) request.headers.push_back(header);
  return request;
}

Result<std::vector<std::string>> parse_model_list(ProviderKind kind, std::string_view body) {
  auto document = base::parse_json(body);
  if (!document || !document->is_object())
    return fail(ErrorCode::protocol, "the model list is not a JSON object");
  const char* list_key = kind == ProviderKind::ollama ? "models" : "data";
  const char* id_key = kind == ProviderKind::ollama ? "name" : "id";
  const auto list = base::json_field<nlohmann::json>(*document, list_key);
  if (!list || !list->is_array())
    return fail(ErrorCode::protocol, fmt::format("the model list has no \"{}\" array", list_key));
  std::vector<std::string> ids;
  for (const auto& item : *list) {
    if (auto id = base::json_field<std::string>(item, id_key)) ids.push_back(std::move(*id));
  }
  return ids;
}

asio::awaitable<ProviderModels> query_models(asio::any_io_executor executor, ModelSource source,
                                             transport::HttpClientOptions options) {
  ProviderModels out{.source = std::move(source)};
  if (!out.source.error.empty()) {
    out.error = out.source.error;
    co_return out;
  }
  if (out.source.kind == ProviderKind::codex) {
    // The Codex backend lists nothing to a client: its models are the catalog's.
    out.reachable = true;
    out.models = {out.source.default_model};
    co_return out;
  }
  if (out.source.kind == ProviderKind::mock) {
    out.reachable = true;
    out.models = {out.source.default_model};
    co_return out;
  }
  auto client = transport::HttpClient::create(std::move(executor), std::move(options));
  if (!client) {
    out.error = client.error().message;
    co_return out;
  }
  transport::HttpRequest request = models_request(out.source);
  transport::BodyHandler whole_body;  // empty: the client collects the body
  auto reply = co_await (*client)->send(request, whole_body);
  if (!reply) {
    out.error = reply.error().message;
    co_return out;
  }
  if (reply->status < 200 || reply->status >= 300) {
    const auto body = base::parse_json(reply->body).value_or(nlohmann::json());
    std::string message;
    // {"error":{"message":...}} (Anthropic, OpenAI) or {"error":"..."} (Ollama).
    if (const auto error = base::json_field<nlohmann::json>(body, "error")) {
      message =
          error->is_string() ? error->get<std::string>() : base::json_value(*error, "message", "");
    }
    out.error = fmt::format("HTTP {}{}{}", reply->status, message.empty() ? "" : ": ", message);
    co_return out;
  }
  auto ids = parse_model_list(out.source.kind, reply->body);
  if (!ids) {
    out.error = ids.error().message;
    co_return out;
  }
  out.reachable = true;
  out.models = std::move(*ids);
  co_return out;
}

asio::awaitable<std::vector<ProviderModels>> query_local_servers(asio::any_io_executor executor,
                                                                 const Settings& settings) {
  std::vector<ProviderModels> answers;
  auto probes = local_probes(settings.env);
  if (!probes) co_return answers;
  for (const LocalProbe& probe : *probes) {
    ModelSource source{.provider = std::string(to_string(probe.kind)),
                       .kind = probe.kind,
                       .base_url = probe.base_url,
                       .default_model = std::string(default_model(probe.kind)),
                       .configured = false};
    auto options = listing_options(source, settings);
    answers.push_back(co_await query_models(executor, std::move(source), std::move(options)));
  }
  co_return answers;
}

const ProviderModels* first_serving(const std::vector<ProviderModels>& answers) {
  for (const auto& answer : answers) {
    if (answer.reachable && !answer.models.empty()) return &answer;
  }
  return nullptr;
}

Settings using_local_server(Settings settings, const ProviderModels& found) {
  settings.provider = found.source.provider;
  // A "model" setting meant for some other provider would be sent here.
  if (!settings.model.empty() &&
      std::ranges::find(found.models, settings.model) == found.models.end())
    settings.model.clear();
  ProviderEntry& entry = settings.providers[found.source.provider];
  entry.kind = found.source.kind;
  entry.base_url = found.source.base_url;
  if (entry.model.empty() && !found.models.empty()) entry.model = found.models.front();
  return settings;
}

transport::HttpClientOptions listing_options(const ModelSource& source, const Settings& settings) {
  transport::HttpClientOptions options;
  options.max_body_bytes = std::size_t{16} * 1024 * 1024;  // routers list thousands of models
  if (source.configured) {
    options.timeouts = {.connect = std::chrono::seconds(5),
                        .first_byte = std::chrono::seconds(15),
                        .idle = std::chrono::seconds(15)};
    options.proxy = transport::proxy_config_from_env(settings.env);
  } else {
    // A probe of a loopback port: answered at once or not there.
    options.timeouts = {.connect = std::chrono::milliseconds(300),
                        .first_byte = std::chrono::seconds(2),
                        .idle = std::chrono::seconds(2)};
    options.proxy = transport::ProxyConfig{};
  }
  return options;
}

}  // namespace ava::llm
