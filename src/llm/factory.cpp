#include "ava/llm/factory.hpp"

#include <cctype>

#include <fmt/format.h>

#include "ava/llm/codex_login.hpp"
#include "ava/llm/http_provider.hpp"
#include "ava/llm/mock_provider.hpp"
#include "ava/transport/url.hpp"

namespace ava::llm {

namespace {

std::string env_value(const Settings& settings, const char* name) {
  auto value = settings.env(name);
  return value ? *value : std::string();
}

// The vendors' own APIs refuse every request without a key, so a missing
// one is reported now rather than as a 401 on the first turn. Other servers
// (local ones, gateways) decide for themselves.
bool needs_key(const ResolvedProvider& provider) {
  for (const auto& header : provider.headers) {
    std::string name = header.name;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "authorization") return false;  // a bearer token instead of a key
  }
  auto url = transport::Url::parse(provider.base_url);
  return url && (url->host == "api.anthropic.com" || url->host == "api.openai.com");
}

std::string missing_key_message(const ResolvedProvider& provider, const Settings& settings) {
  std::string auth = settings.auth_file.empty() ? "auth.json" : settings.auth_file.string();
  if (!provider.key_variable.empty()) {
    return fmt::format("no API key for provider '{}': set {} (or save the key in {})",
                       provider.name, provider.key_variable, auth);
  }
  return fmt::format(
      "no API key for provider '{}': give it an \"apiKeyEnv\" in settings.json or save the key "
      "in {}",
      provider.name, auth);
}

// settings.json "model" belongs to settings.json "provider" (or, with no
// provider there, to whichever default was found), not to one picked instead.
bool uses_settings_default(const Settings& settings, const ProviderChoice& choice,
                           const std::string& name) {
  if (!settings.provider.empty()) return name == settings.provider;
  return choice.provider.empty() && env_value(settings, "AVA_PROVIDER").empty();
}

// The codex provider sends the Codex CLI's ChatGPT login, refreshed as
// Codex does, to the Codex backend, which takes no max_output_tokens.
Result<void> use_codex_login(const ResolvedProvider& resolved, const Settings& settings,
                             HttpProviderConfig& config) {
  if (resolved.login_file.empty()) {
    return fail(ErrorCode::permission_denied,
                "the codex provider uses the Codex CLI's ChatGPT login and there is none: run "
                "`codex login` (it writes ~/.codex/auth.json, or $CODEX_HOME/auth.json)");
  }
  transport::HttpClientOptions http;
  http.proxy = config.http.proxy;
  http.timeouts = {.connect = std::chrono::seconds(10),
                   .first_byte = std::chrono::seconds(30),
                   .idle = std::chrono::seconds(30)};
  auto credentials =
      CodexCredentials::for_file(resolved.login_file, codex_token_url(settings.env), http);
  config.credentials = [credentials](bool rejected) { return credentials->headers(rejected); };
  config.send_max_output_tokens = false;
  config.extra_headers.push_back({"openai-beta", "responses=experimental"});
  return {};
}

Result<std::unique_ptr<Provider>> make_mock(const ResolvedProvider& resolved) {
  if (resolved.mock_script.empty()) return std::make_unique<MockProvider>();
  AVA_TRY(auto script, load_mock_script(resolved.mock_script));
  return std::make_unique<MockProvider>(std::move(script));
}

}  // namespace

std::string choose_model(const Settings& settings, const ProviderChoice& choice,
                         const ResolvedProvider& provider) {
  if (!choice.model.empty()) return choice.model;
  if (auto model = env_value(settings, "AVA_MODEL"); !model.empty()) return model;
  if (!settings.model.empty() && uses_settings_default(settings, choice, provider.name))
    return settings.model;
  return provider.model;
}

std::string_view no_provider_message() {
  return "no model provider configured: `ava auth login` saves a key (or set ANTHROPIC_API_KEY or "
         "OPENAI_API_KEY); a local model server works too: start Ollama, LM Studio or llama.cpp "
         "and pass --provider ollama|lmstudio|llamacpp (`ava models` lists what they serve); "
         "--provider mock answers offline";
}

Result<SelectedProvider> make_provider(boost::asio::any_io_executor executor,
                                       const Settings& settings, const ProviderChoice& choice) {
  std::string name = choice.provider.empty() ? default_provider_name(settings) : choice.provider;
  if (name.empty()) {
    return fail(ErrorCode::not_found, std::string(no_provider_message()));
  }
  AVA_TRY(auto resolved, resolve_provider(settings, name, true));

  std::string model = choose_model(settings, choice, resolved);
  if (model.empty()) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("no model set for provider '{}': pass --model or set AVA_MODEL "
                            "(`ava models` lists what it serves)",
                            name));
  }

  SelectedProvider selected{.provider_name = name, .model = model};
  auto api = wire_api_of(resolved.kind);
  if (!api) {
    AVA_TRY(selected.provider, make_mock(resolved));
    return selected;
  }
  if (resolved.kind != ProviderKind::codex && resolved.api_key.empty() && needs_key(resolved)) {
    return fail(ErrorCode::permission_denied, missing_key_message(resolved, settings));
  }
  selected.api = *api;
  HttpProviderConfig config{.api = *api,
                            .base_url = resolved.base_url,
                            .api_key = resolved.api_key,
                            .extra_headers = resolved.headers};
  config.http.proxy = transport::proxy_config_from_env(settings.env);
  if (resolved.kind == ProviderKind::codex)
    AVA_TRY_VOID(use_codex_login(resolved, settings, config));
  AVA_TRY(selected.provider, HttpProvider::create(std::move(executor), std::move(config)));
  return selected;
}

}  // namespace ava::llm
