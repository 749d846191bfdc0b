// Which provider is in use and how it is reached: settings.json, auth.json
// and the environment combined (precedence documented in settings.hpp and
// docs/providers.md).

#include <fmt/format.h>

#include "ava/llm/catalog.hpp"
#include "ava/llm/settings.hpp"
#include "ava/transport/url.hpp"
#include "ollama_host.hpp"

namespace ava::llm {

namespace {

// An unset and an empty variable mean the same: `FOO= ava` clears FOO.
std::string env_value(const Settings& settings, const char* name) {
  auto value = settings.env(name);
  return value ? *value : std::string();
}

// The official SDKs' variables, which only their own providers read.
struct VendorVariables {
  const char* key;
  const char* base_url;
};

std::optional<VendorVariables> vendor_variables(std::string_view name) {
  if (name == "anthropic") return VendorVariables{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"};
  if (name == "openai" || name == "openai-responses")
    return VendorVariables{"OPENAI_API_KEY", "OPENAI_BASE_URL"};
  return std::nullopt;
}

bool has_saved_key(const Settings& settings, std::string_view provider) {
  auto saved = settings.keys.find(provider);
  return saved != settings.keys.end() && !saved->second.empty();
}

}  // namespace

std::string ollama_base_url(std::string_view host) {
  while (!host.empty() && (host.back() == '/' || host.back() == ' ')) host.remove_suffix(1);
  while (!host.empty() && host.front() == ' ') host.remove_prefix(1);
  if (host.empty()) return {};
  std::string scheme = "http://";
  if (const auto at = host.find("://"); at != std::string_view::npos) {
    scheme = std::string(host.substr(0, at + 3));
    host.remove_prefix(at + 3);
  }
  std::string address(host);
  // "[::1]:11434", "[::1]", "host:port", "host"
  const bool bracketed = address.starts_with('[');
  const auto close = address.find(']');
  const auto colon = address.rfind(':');
  const bool has_port =
      bracketed
          ? (close != std::string::npos && colon != std::string::npos && colon > close)
          : (colon != std::string::npos && address.find(':') == colon);  // one colon: host:port
  std::string name = has_port ? address.substr(0, colon) : address;
  const std::string port = has_port ? address.substr(colon + 1) : std::string("11434");
  if (name.empty() || name == "0.0.0.0") name = "127.0.0.1";
  if (name == "[::]") name = "[::1]";
  if (name == "::") name = "::1";
  if (!bracketed && name.find(':') != std::string::npos) name = "[" + name + "]";  // bare IPv6
  return scheme + name + ":" + port + "/v1";
}

std::string default_provider_name(const Settings& settings) {
  if (auto chosen = env_value(settings, "AVA_PROVIDER"); !chosen.empty()) return chosen;
  if (!settings.provider.empty()) return settings.provider;
  if (!env_value(settings, "ANTHROPIC_API_KEY").empty()) return "anthropic";
  // Claude Code's bearer token (a gateway's, or an OAuth access token).
  if (!env_value(settings, "ANTHROPIC_AUTH_TOKEN").empty()) return "anthropic";
  if (!env_value(settings, "OPENAI_API_KEY").empty()) return "openai";
  if (has_saved_key(settings, "anthropic")) return "anthropic";
  if (has_saved_key(settings, "openai")) return "openai";
  // The Codex CLI's login: its ChatGPT tokens, else its API key.
  if (!settings.codex_login.empty()) return "codex";
  if (!settings.codex_api_key.empty()) return "openai";
  return {};
}

Result<ResolvedProvider> resolve_provider(const Settings& settings, std::string_view name,
                                          bool in_use) {
  auto builtin = parse_provider_kind(name);
  auto found = settings.providers.find(name);
  const ProviderEntry* entry = found == settings.providers.end() ? nullptr : &found->second;
  if (!builtin && entry == nullptr) {
    std::string where = settings.settings_file.empty() ? std::string("settings.json")
                                                       : settings.settings_file.string();
    return fail(ErrorCode::not_found,
                fmt::format("unknown provider '{}': use anthropic, openai, openai-responses, "
                            "ollama, lmstudio, llamacpp, codex or mock, or define it under "
                            "\"providers\" in {}",
                            name, where));
  }
  ResolvedProvider out;
  out.name = std::string(name);
  out.kind = entry != nullptr ? entry->kind : *builtin;
  out.builtin = builtin.has_value();
  auto vendor = vendor_variables(name);

  std::string source;  // which setting the base URL came from, for a bad one
  auto take = [&](std::string value, std::string from) {
    if (out.base_url.empty() && !value.empty()) {
      out.base_url = std::move(value);
      source = std::move(from);
    }
  };
  if (in_use) take(env_value(settings, "AVA_BASE_URL"), "AVA_BASE_URL");
  if (vendor) take(env_value(settings, vendor->base_url), vendor->base_url);
  if (out.kind == ProviderKind::ollama && out.builtin) {
    take(ollama_base_url(env_value(settings, "OLLAMA_HOST")), "OLLAMA_HOST");
  }
  if (entry != nullptr) take(entry->base_url, fmt::format("providers.{}.baseUrl", name));
  take(default_base_url(out.kind), "the default");
  if (!out.base_url.empty()) {
    if (auto url = transport::Url::parse(out.base_url); !url) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("{} for provider '{}': {}", source, name, url.error().message));
    }
  }

  if (entry != nullptr && !entry->api_key_env.empty()) {
    out.key_variable = entry->api_key_env;
  } else if (vendor) {
    out.key_variable = vendor->key;
  }
  std::string key;
  if (in_use) key = env_value(settings, "AVA_API_KEY");
  if (key.empty() && !out.key_variable.empty()) key = env_value(settings, out.key_variable.c_str());
  if (!key.empty()) {
    out.api_key = base::Secret(std::move(key));
  } else if (auto saved = settings.keys.find(name); saved != settings.keys.end()) {
    out.api_key = saved->second;
  } else if (name == "openai" || name == "openai-responses") {
    out.api_key = settings.codex_api_key;  // the Codex CLI's key login, if any
  }
  if (out.kind == ProviderKind::codex) out.login_file = settings.codex_login;

  if (entry != nullptr) out.headers = entry->headers;
  // No key but ANTHROPIC_AUTH_TOKEN: sent as a bearer token instead of
  // x-api-key, as Claude Code does.
  if (out.api_key.empty() && out.kind == ProviderKind::anthropic && out.builtin) {
    if (auto token = env_value(settings, "ANTHROPIC_AUTH_TOKEN"); !token.empty()) {
      out.headers.push_back({"authorization", "Bearer " + token});
    }
  }
  out.model = entry != nullptr && !entry->model.empty() ? entry->model
                                                        : std::string(default_model(out.kind));
  if (in_use) out.mock_script = env_value(settings, "AVA_MOCK_SCRIPT");
  if (out.mock_script.empty() && entry != nullptr) out.mock_script = entry->mock_script;
  return out;
}

std::vector<std::string> provider_names(const Settings& settings) {
  std::vector<std::string> names;
  for (auto kind : {ProviderKind::anthropic, ProviderKind::openai, ProviderKind::openai_responses,
                    ProviderKind::ollama, ProviderKind::lmstudio, ProviderKind::llamacpp,
                    ProviderKind::codex, ProviderKind::mock}) {
    names.emplace_back(to_string(kind));
  }
  for (const auto& [name, entry] : settings.providers) {
    if (!parse_provider_kind(name)) names.push_back(name);
  }
  return names;
}

}  // namespace ava::llm
