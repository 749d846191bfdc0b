#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/base/log.hpp"
#include "ava/llm/decoder.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::llm {

// What a provider speaks and where it usually lives.
// codex: the ChatGPT Codex backend (OpenAI Responses) with the Codex CLI's login.
enum class ProviderKind {
  anthropic,
  openai,
  openai_responses,
  ollama,
  lmstudio,
  llamacpp,
  codex,
  mock
};

// "anthropic", "openai", "openai-responses", "ollama", "lmstudio", "llamacpp", "codex", "mock".
Result<ProviderKind> parse_provider_kind(std::string_view name);
std::string_view to_string(ProviderKind kind);
// The wire format of a kind; nullopt for mock.
std::optional<WireApi> wire_api_of(ProviderKind kind);
// Where a kind's server is when nothing says otherwise; empty for mock.
std::string default_base_url(ProviderKind kind);

// One entry of settings.json "providers". An entry named like a built-in
// provider adjusts it (its kind may be left out); any other name defines a
// provider of its own and needs a kind.
struct ProviderEntry {
  ProviderKind kind = ProviderKind::openai;
  std::string base_url;                        // empty: the kind's default
  std::string model;                           // the provider's default model
  std::vector<transport::HttpHeader> headers;  // sent with every request
  std::string api_key_env;                     // a variable holding its key
  std::filesystem::path mock_script;           // kind mock
};

// Per-model adjustments to the catalog ("models" in settings.json).
struct ModelOverride {
  std::optional<std::int64_t> context_window;
  std::optional<std::int64_t> max_output;
};

// settings.json and auth.json from AVA_HOME, plus the environment, which
// takes precedence and is only consulted through `env` (tests inject one).
struct Settings {
  std::filesystem::path settings_file;  // for messages; empty when built in memory
  std::filesystem::path profile_file;   // the active profile's overlay; empty: none
  std::filesystem::path auth_file;
  std::string provider;  // settings.json "provider": the default provider
  std::string model;     // settings.json "model": the default provider's model
  std::map<std::string, ProviderEntry, std::less<>> providers;
  std::map<std::string, ModelOverride, std::less<>> models;
  // settings.json "childEnvironment": {"keep": [NAMES]}: variables that
  // reach bash and MCP server children although their names look like
  // credentials (KEY, SECRET, TOKEN, PASSWORD); see proc/environment.hpp.
  std::vector<std::string> child_environment_keep;
  std::map<std::string, base::Secret, std::less<>> keys;  // auth.json, by provider name
  // The Codex CLI's login ($CODEX_HOME/auth.json, llm/codex_login.hpp):
  // the file when it holds ChatGPT tokens (for the codex provider), and its
  // API key (openai's last resort). Empty when there is none.
  std::filesystem::path codex_login;
  base::Secret codex_api_key;
  base::EnvLookup env = [](const char*) { return std::optional<std::string>(); };
};

// Reads both files (a missing file is empty settings), with the active
// profile's AVA_HOME/profiles/<name>.json (base::active_profile, read from
// `env`) over settings.json: what it names replaces settings.json's. auth.json looser than
// 0600 is tightened, one owned by someone else is refused. Errors name the
// file and the problem (ErrorCode::parse for malformed content).
Result<Settings> load_settings(const base::Home& home,
                               const base::EnvLookup& env = base::process_env);
// The settings.json part alone; `origin` names the text in errors.
Result<void> parse_settings_json(std::string_view text, std::string_view origin, Settings& into);

// Stores a provider's key in auth.json (0600, written to a temporary file and
// renamed over the old one), keeping the other keys.
Result<void> save_api_key(const base::Home& home, std::string_view provider,
                          const base::Secret& key);

// Forgets a provider's key in auth.json; not_found when none was saved.
Result<void> remove_api_key(const base::Home& home, std::string_view provider);

// Fields of a settings.json "providers" entry to set; the ones left empty
// keep their value (or stay absent).
struct ProviderUpdate {
  std::optional<std::string> kind;
  std::optional<std::string> base_url;
  std::optional<std::string> model;
  bool make_default = false;  // settings.json "provider" names it
};

// Adds or changes one provider in settings.json, keeping everything else in
// the file as it was. The changed file is checked as load_settings would
// read it before it replaces the old one, so a bad kind or URL is refused
// (ErrorCode::parse naming the field) and the file stays loadable.
Result<void> save_provider(const base::Home& home, std::string_view name,
                           const ProviderUpdate& update);

// A provider with its settings, credentials and the environment applied.
struct ResolvedProvider {
  std::string name;
  ProviderKind kind = ProviderKind::openai;
  bool builtin = false;  // one of the names of ProviderKind
  std::string base_url;  // empty only for mock
  base::Secret api_key;
  // The variable that supplies its key ("ANTHROPIC_API_KEY"), for messages;
  // empty when only auth.json can.
  std::string key_variable;
  std::vector<transport::HttpHeader> headers;
  std::string model;  // its default model; empty when it has none (ollama, lmstudio)
  std::filesystem::path mock_script;
  std::filesystem::path login_file;  // codex: the Codex login whose tokens it sends
};

// The provider in use when none is chosen: AVA_PROVIDER, else settings.json
// "provider", else anthropic when ANTHROPIC_API_KEY (or its auth.json key) is
// there, else openai likewise. Empty: nothing is configured.
std::string default_provider_name(const Settings& settings);

// Resolves a provider by name. Precedence, highest first:
//   base URL: AVA_BASE_URL (in_use), ANTHROPIC_BASE_URL / OPENAI_BASE_URL
//             (the built-in anthropic / openai and openai-responses only),
//             settings.json, the kind's default;
//   key:      AVA_API_KEY (in_use), the provider's variable (ANTHROPIC_API_KEY,
//             OPENAI_API_KEY, or its "apiKeyEnv"), auth.json;
//   mock script: AVA_MOCK_SCRIPT (in_use), settings.json.
// Vendor variables never reach a provider the user named otherwise, so an
// OpenAI key is not sent to some other OpenAI-compatible server.
Result<ResolvedProvider> resolve_provider(const Settings& settings, std::string_view name,
                                          bool in_use);

// The built-in names followed by the user's own providers.
std::vector<std::string> provider_names(const Settings& settings);

}  // namespace ava::llm
