// settings.json: providers, the default provider and model, per-model
// overrides (format in docs/providers.md).

#include "ava/llm/settings.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "ava/llm/codex_login.hpp"
#include "ava/transport/url.hpp"
#include "llm/settings_files.hpp"

namespace ava::llm {

namespace {

using nlohmann::json;

constexpr std::pair<std::string_view, ProviderKind> kind_names[] = {
    {"anthropic", ProviderKind::anthropic},
    {"openai", ProviderKind::openai},
    {"openai-responses", ProviderKind::openai_responses},
    {"ollama", ProviderKind::ollama},
    {"lmstudio", ProviderKind::lmstudio},
    {"llamacpp", ProviderKind::llamacpp},
    {"codex", ProviderKind::codex},
    {"mock", ProviderKind::mock}};

// Reads one field of an object with a type check; errors say where.
class Fields {
 public:
  Fields(const json& object, std::string origin, std::string path)
      : object_(object), origin_(std::move(origin)), path_(std::move(path)) {}

  Result<std::optional<std::string>> string(const char* key) const {
    if (!object_.contains(key)) return std::nullopt;
    const json& value = object_[key];
    if (!value.is_string()) return type_error(key, "a string");
    return value.get<std::string>();
  }
  Result<std::optional<std::int64_t>> positive(const char* key) const {
    if (!object_.contains(key)) return std::nullopt;
    const json& value = object_[key];
    if (!value.is_number_integer() || value.get<std::int64_t>() <= 0)
      return type_error(key, "a positive integer");
    return value.get<std::int64_t>();
  }
  std::unexpected<Error> error(std::string_view key, std::string_view problem) const {
    return fail(ErrorCode::parse, fmt::format("{}: {}{}: {}", origin_, path_, key, problem));
  }

 private:
  std::unexpected<Error> type_error(std::string_view key, std::string_view expected) const {
    return error(key, fmt::format("must be {}", expected));
  }
  const json& object_;
  std::string origin_;
  std::string path_;
};

bool header_safe(std::string_view text) {
  return text.find_first_of("\r\n") == std::string_view::npos;
}

Result<ProviderEntry> parse_entry(const std::string& name, const json& value,
                                  std::string_view origin) {
  Fields fields(value, std::string(origin), fmt::format("providers.{}.", name));
  if (!value.is_object()) {
    return fail(ErrorCode::parse, fmt::format("{}: providers.{} must be an object", origin, name));
  }
  ProviderEntry entry;
  auto builtin = parse_provider_kind(name);
  AVA_TRY(auto kind, fields.string("kind"));
  if (kind) {
    auto parsed = parse_provider_kind(*kind);
    if (!parsed) return fields.error("kind", parsed.error().message);
    if (builtin && *parsed != *builtin)
      return fields.error("kind", fmt::format("must be {} for the built-in provider", name));
    entry.kind = *parsed;
  } else if (builtin) {
    entry.kind = *builtin;
  } else {
    return fields.error("kind",
                        "missing (anthropic, openai, openai-responses, ollama, lmstudio, "
                        "llamacpp or mock)");
  }
  AVA_TRY(auto base_url, fields.string("baseUrl"));
  if (base_url) {
    if (auto url = transport::Url::parse(*base_url); !url) {
      return fields.error("baseUrl", url.error().message);
    }
    entry.base_url = *base_url;
  }
  AVA_TRY(auto model, fields.string("model"));
  entry.model = model.value_or("");
  AVA_TRY(auto key_env, fields.string("apiKeyEnv"));
  entry.api_key_env = key_env.value_or("");
  AVA_TRY(auto script, fields.string("mockScript"));
  if (script) entry.mock_script = *script;
  if (value.contains("headers")) {
    const json& headers = value["headers"];
    if (!headers.is_object()) return fields.error("headers", "must be an object of strings");
    for (const auto& [header, header_value] : headers.items()) {
      if (!header_value.is_string() || !header_safe(header) ||
          !header_safe(header_value.get<std::string>())) {
        return fields.error("headers", fmt::format("'{}' must be a one-line string", header));
      }
      entry.headers.push_back({header, header_value.get<std::string>()});
    }
  }
  return entry;
}

// "childEnvironment": {"keep": ["GITHUB_TOKEN", ...]}
Result<std::vector<std::string>> parse_child_environment(const json& value,
                                                         std::string_view origin) {
  Fields fields(value, std::string(origin), "childEnvironment.");
  if (!value.is_object()) {
    return fail(ErrorCode::parse, fmt::format("{}: childEnvironment must be an object", origin));
  }
  std::vector<std::string> keep;
  if (!value.contains("keep")) return keep;
  const json& names = value["keep"];
  if (!names.is_array()) return fields.error("keep", "must be an array of variable names");
  for (const auto& name : names) {
    if (!name.is_string() || name.get<std::string>().empty() ||
        name.get<std::string>().find_first_of("=\r\n") != std::string::npos) {
      return fields.error("keep", "must be an array of variable names");
    }
    keep.push_back(name.get<std::string>());
  }
  return keep;
}

Result<std::optional<std::string>> read_optional_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return fail(ErrorCode::io, fmt::format("{}: {}", path.string(), ec.message()));
  if (size > detail::settings_file_limit) {
    return fail(ErrorCode::limit_exceeded, fmt::format("{}: larger than 1 MiB", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::io, fmt::format("{}: cannot be read", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Result<ProviderKind> parse_provider_kind(std::string_view name) {
  for (const auto& [key, kind] : kind_names) {
    if (key == name) return kind;
  }
  return fail(ErrorCode::invalid_argument,
              fmt::format("unknown provider kind '{}' (anthropic, openai, openai-responses, "
                          "ollama, lmstudio, llamacpp, mock)",
                          name));
}

std::string_view to_string(ProviderKind kind) {
  for (const auto& [key, value] : kind_names) {
    if (value == kind) return key;
  }
  return "unknown";
}

std::optional<WireApi> wire_api_of(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::anthropic: return WireApi::anthropic_messages;
    case ProviderKind::openai_responses:
    case ProviderKind::codex: return WireApi::openai_responses;
    case ProviderKind::openai:
    case ProviderKind::ollama:
    case ProviderKind::lmstudio:
    case ProviderKind::llamacpp: return WireApi::openai_chat;
    case ProviderKind::mock: return std::nullopt;
  }
  return std::nullopt;
}

std::string default_base_url(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::anthropic: return "https://api.anthropic.com";
    case ProviderKind::openai:
    case ProviderKind::openai_responses: return "https://api.openai.com/v1";
    case ProviderKind::ollama: return "http://127.0.0.1:11434/v1";
    case ProviderKind::lmstudio: return "http://127.0.0.1:1234/v1";
    case ProviderKind::llamacpp: return "http://127.0.0.1:8080/v1";
    case ProviderKind::codex: return "https://chatgpt.com/backend-api/codex";
    case ProviderKind::mock: return {};
  }
  return {};
}

Result<void> parse_settings_json(std::string_view text, std::string_view origin, Settings& into) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};  // empty file
  AVA_TRY(json document, detail::parse_json_document(text, origin, false));
  if (!document.is_object()) {
    return fail(ErrorCode::parse, fmt::format("{}: must hold a JSON object", origin));
  }
  Fields top(document, std::string(origin), "");
  // A later document (a profile) changes only what it names.
  AVA_TRY(auto provider, top.string("provider"));
  if (provider) into.provider = *provider;
  AVA_TRY(auto model, top.string("model"));
  if (model) into.model = *model;
  if (document.contains("providers")) {
    if (!document["providers"].is_object()) return top.error("providers", "must be an object");
    for (const auto& [name, value] : document["providers"].items()) {
      if (!detail::valid_provider_name(name)) {
        return top.error("providers", fmt::format("'{}' is not a valid provider name (letters, "
                                                  "digits, '.', '_', '-')",
                                                  name));
      }
      AVA_TRY(auto entry, parse_entry(name, value, origin));
      into.providers.insert_or_assign(name, std::move(entry));
    }
  }
  if (document.contains("childEnvironment")) {
    AVA_TRY(into.child_environment_keep,
            parse_child_environment(document["childEnvironment"], origin));
  }
  if (document.contains("models")) {
    if (!document["models"].is_object()) return top.error("models", "must be an object");
    for (const auto& [id, value] : document["models"].items()) {
      if (!value.is_object()) return top.error("models." + id, "must be an object");
      Fields fields(value, std::string(origin), fmt::format("models.{}.", id));
      AVA_TRY(auto context_window, fields.positive("contextWindow"));
      AVA_TRY(auto max_output, fields.positive("maxOutput"));
      into.models.insert_or_assign(
          id, ModelOverride{.context_window = context_window, .max_output = max_output});
    }
  }
  return {};
}

Result<Settings> load_settings(const base::Home& home, const base::EnvLookup& env) {
  Settings settings;
  settings.settings_file = home.file("settings.json");
  settings.auth_file = home.file("auth.json");
  settings.env = env;
  AVA_TRY(auto text, read_optional_file(settings.settings_file));
  if (text) {
    AVA_TRY_VOID(parse_settings_json(*text, settings.settings_file.string(), settings));
  }
  // The active profile's file overlays it (AVA_PROFILE, --profile).
  AVA_TRY(auto profile, base::profile_settings_file(home.root(), env));
  if (profile) {
    AVA_TRY(auto overlay, read_optional_file(*profile));
    if (overlay) AVA_TRY_VOID(parse_settings_json(*overlay, profile->string(), settings));
    settings.profile_file = *profile;
  }
  // A relative mock script is relative to the settings file.
  for (auto& [name, entry] : settings.providers) {
    if (!entry.mock_script.empty() && entry.mock_script.is_relative())
      entry.mock_script = home.root() / entry.mock_script;
  }
  AVA_TRY_VOID(detail::load_auth_keys(settings.auth_file, settings));
  // The Codex CLI's file is its own: one Ava cannot read is only not used.
  if (auto path = codex_auth_path(env); !path.empty()) {
    if (auto codex = read_codex_auth(path)) {
      if (codex->tokens) settings.codex_login = path;
      if (codex->api_key) settings.codex_api_key = *codex->api_key;
    } else if (codex.error().code != ErrorCode::not_found) {
      spdlog::warn("the Codex login is not used: {}", codex.error().message);
    }
  }
  return settings;
}

}  // namespace ava::llm
