// `ava auth login|set-key|logout|status`: the provider keys in
// AVA_HOME/auth.json, read without echo and never printed.
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/llm/settings.hpp"
#include "cli/commands.hpp"
#include "cli/model_query.hpp"
#include "cli/terminal_input.hpp"

namespace ava::cli {
namespace {

constexpr CommandName command_name{.name = "auth", .redact = true};
constexpr std::size_t max_key_input = 8192;

// Local servers and the mock take no key.
bool needs_key(llm::ProviderKind kind) {
  return kind == llm::ProviderKind::anthropic || kind == llm::ProviderKind::openai ||
         kind == llm::ProviderKind::openai_responses;
}

// Where a provider's key comes from, in resolve_provider's precedence.
struct KeyOrigin {
  std::string source;  // "environment", "auth.json", "none", "not needed"
  std::string variable;
};

KeyOrigin key_origin(const llm::Settings& settings, const llm::ResolvedProvider& provider,
                     bool in_use) {
  const auto set = [&](const std::string& name) {
    auto value = settings.env(name.c_str());
    return value && !value->empty();
  };
  if (in_use && set("AVA_API_KEY")) return {"environment", "AVA_API_KEY"};
  if (!provider.key_variable.empty() && set(provider.key_variable)) {
    return {"environment", provider.key_variable};
  }
  if (settings.keys.contains(provider.name)) return {"auth.json", ""};
  if (provider.kind == llm::ProviderKind::anthropic && set("ANTHROPIC_AUTH_TOKEN")) {
    return {"environment", "ANTHROPIC_AUTH_TOKEN"};
  }
  if (provider.kind == llm::ProviderKind::codex) {
    return provider.login_file.empty() ? KeyOrigin{"none", ""}
                                       : KeyOrigin{"codex login", provider.login_file.string()};
  }
  if (!provider.api_key.empty()) return {"codex login", "OPENAI_API_KEY"};  // the Codex CLI's key
  if (!needs_key(provider.kind)) return {"not needed", ""};
  return {"none", ""};
}

Result<llm::Settings> load(const base::Home& home) { return llm::load_settings(home); }

// The provider named, which must exist and take a key.
Result<llm::ResolvedProvider> keyed_provider(const llm::Settings& settings, std::string_view name) {
  auto provider = llm::resolve_provider(settings, name, false);
  if (!provider) {
    std::string names;
    for (const auto& known : llm::provider_names(settings)) names += " " + known;
    return fail(ErrorCode::invalid_argument,
                fmt::format("unknown provider '{}'; known:{}", name, names));
  }
  if (provider->kind == llm::ProviderKind::mock) {
    return fail(ErrorCode::invalid_argument, "the mock provider takes no key");
  }
  if (provider->kind == llm::ProviderKind::codex) {
    return fail(ErrorCode::invalid_argument,
                "the codex provider takes no key: it uses the Codex CLI's ChatGPT login "
                "(`codex login`)");
  }
  return provider;
}

// The key: typed at the terminal with echo off, else read from stdin (a
// pipe: `pass show anthropic | ava auth set-key anthropic`), one line.
Result<base::Secret> read_key(std::string_view provider) {
  std::string key;
  if (::isatty(STDIN_FILENO) != 0) {
    auto typed = ask_secret(fmt::format("API key for {} (not shown): ", provider));
    if (!typed) return fail(ErrorCode::cancelled, "no key was typed");
    key = std::move(*typed);
  } else {
    std::string line;
    char buffer[1024];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) {
      line.append(buffer, got);
      if (line.size() > max_key_input) {
        return fail(ErrorCode::invalid_argument, "the key on stdin is longer than 8 KiB");
      }
    }
    key = line.substr(0, line.find('\n'));
  }
  while (!key.empty() && (key.back() == '\r' || key.back() == ' ' || key.back() == '\t')) {
    key.pop_back();
  }
  while (!key.empty() && (key.front() == ' ' || key.front() == '\t')) key.erase(0, 1);
  if (key.empty()) return fail(ErrorCode::invalid_argument, "the key is empty; nothing was saved");
  return base::Secret(std::move(key));
}

// Lists the provider's models with the new key: a wrong key or an
// unreachable server is found before the key is saved.
Result<std::size_t> verify(const llm::Settings& settings, llm::ResolvedProvider provider,
                           const base::Secret& key) {
  llm::ModelSource source{.provider = provider.name,
                          .kind = provider.kind,
                          .base_url = provider.base_url,
                          .api_key = key,
                          .headers = provider.headers,
                          .default_model = provider.model};
  auto listed = query_all({source}, settings);
  if (listed.empty() || !listed.front().reachable) {
    return fail(ErrorCode::unavailable,
                fmt::format("{} did not accept the key ({}); nothing was saved (--no-verify saves "
                            "it anyway)",
                            provider.name, listed.empty() ? "no answer" : listed.front().error));
  }
  return listed.front().models.size();
}

void note_override(const llm::Settings& settings, const llm::ResolvedProvider& provider) {
  if (provider.key_variable.empty()) return;
  if (auto value = settings.env(provider.key_variable.c_str()); value && !value->empty()) {
    std::fprintf(stderr,
                 "ava auth: note: %s is set in this environment and takes precedence over the "
                 "saved key\n",
                 provider.key_variable.c_str());
  }
}

Result<int> save(const base::Home& home, const std::string& name, bool check) {
  AVA_TRY(auto settings, load(home));
  auto provider = keyed_provider(settings, name);
  if (!provider) return usage_error(command_name, provider.error());
  AVA_TRY(auto key, read_key(name));
  if (check) {
    AVA_TRY(auto count, verify(settings, *provider, key));
    std::printf("%s accepted the key (%zu models)\n", name.c_str(), count);
  }
  AVA_TRY_VOID(llm::save_api_key(home, name, key));
  std::printf("saved the %s key in %s\n", name.c_str(), home.file("auth.json").c_str());
  note_override(settings, *provider);
  return 0;
}

// Asks which provider when none is named (a terminal only).
Result<std::string> choose_provider(const llm::Settings& settings) {
  std::vector<std::string> choices;
  for (const auto& name : llm::provider_names(settings)) {
    auto provider = llm::resolve_provider(settings, name, false);
    if (provider && needs_key(provider->kind)) choices.push_back(name);
  }
  if (::isatty(STDIN_FILENO) == 0 || choices.empty()) {
    return fail(ErrorCode::invalid_argument,
                "name the provider: ava auth login PROVIDER (e.g. anthropic or openai)");
  }
  for (std::size_t i = 0; i < choices.size(); ++i) {
    std::printf("  %zu. %s\n", i + 1, choices[i].c_str());
  }
  std::fflush(stdout);
  auto answer = ask_line(fmt::format("Provider [1-{}, or a name] (1): ", choices.size()));
  if (!answer) return fail(ErrorCode::cancelled, "no provider was chosen");
  if (answer->empty()) return choices.front();
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (*answer == std::to_string(i + 1) || *answer == choices[i]) return choices[i];
  }
  return fail(ErrorCode::invalid_argument, fmt::format("'{}' is not one of the choices", *answer));
}

Result<int> login(const base::Home& home, std::string name, bool check) {
  if (name.empty()) {
    AVA_TRY(auto settings, load(home));
    auto chosen = choose_provider(settings);
    if (!chosen) return usage_error(command_name, chosen.error());
    name = std::move(*chosen);
  }
  return save(home, name, check);
}

Result<int> logout(const base::Home& home, const std::string& name, bool all) {
  AVA_TRY(auto settings, load(home));
  std::vector<std::string> names;
  if (all) {
    for (const auto& [saved, key] : settings.keys) names.push_back(saved);
  } else if (!name.empty()) {
    names.push_back(name);
  } else if (settings.keys.size() == 1) {
    names.push_back(settings.keys.begin()->first);
  } else {
    std::string saved;
    for (const auto& [known, key] : settings.keys) saved += " " + known;
    return usage_error(
        command_name,
        {ErrorCode::invalid_argument,
         settings.keys.empty() ? std::string("no key is saved")
                               : "name the provider (or --all); keys are saved for:" + saved});
  }
  for (const auto& each : names) {
    AVA_TRY_VOID(llm::remove_api_key(home, each));
    std::printf("removed the %s key\n", each.c_str());
  }
  if (names.empty()) std::printf("no key is saved\n");
  return 0;
}

Result<int> status(const base::Home& home, bool json) {
  AVA_TRY(auto settings, load(home));
  const auto in_use = llm::default_provider_name(settings);
  nlohmann::json providers = nlohmann::json::array();
  for (const auto& name : llm::provider_names(settings)) {
    auto provider = llm::resolve_provider(settings, name, name == in_use);
    if (!provider) {
      providers.push_back({{"name", name}, {"error", provider.error().message}});
      continue;
    }
    if (provider->kind == llm::ProviderKind::mock) continue;
    const auto origin = key_origin(settings, *provider, name == in_use);
    providers.push_back({{"name", name},
                         {"kind", llm::to_string(provider->kind)},
                         {"inUse", name == in_use},
                         {"baseUrl", provider->base_url},
                         {"key", origin.source},
                         {"keyVariable", origin.variable}});
  }
  if (json) {
    std::printf("%s\n",
                nlohmann::json{{"inUse", in_use}, {"providers", providers}}.dump(2).c_str());
    return 0;
  }
  for (const auto& entry : providers) {
    if (entry.contains("error")) {
      std::printf("%-18s error: %s\n", entry["name"].get<std::string>().c_str(),
                  entry["error"].get<std::string>().c_str());
      continue;
    }
    std::string key = entry["key"];
    if (key == "environment")
      key = "key from " + entry["keyVariable"].get<std::string>();
    else if (key == "auth.json")
      key = "key saved in auth.json";
    else if (key == "codex login")
      key = "the Codex CLI's login";
    else if (key == "none")
      key = "no key";
    else
      key = "no key needed";
    std::printf("%-18s %-28s %s%s\n", entry["name"].get<std::string>().c_str(), key.c_str(),
                entry["baseUrl"].get<std::string>().c_str(),
                entry["inUse"].get<bool>() ? "  (in use)" : "");
  }
  if (in_use.empty()) {
    std::printf(
        "\nno provider is configured: `ava auth login` saves a key, or run a local model "
        "server (Ollama, LM Studio, llama.cpp) and see `ava models`\n");
  }
  return 0;
}

}  // namespace

void add_auth_commands(CLI::App& cli, CliContext& context) {
  auto* group = cli.add_subcommand("auth", "Save, check or remove provider keys (auth.json)");
  group->require_subcommand(1);
  auto provider = std::make_shared<std::string>();
  auto no_verify = std::make_shared<bool>(false);
  auto all = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  auto* login_cmd = group->add_subcommand(
      "login", "Type a provider's key (hidden), check it against the provider, save it");
  login_cmd->add_option("provider", *provider, "anthropic, openai, ... (asked when left out)");
  login_cmd->add_flag("--no-verify", *no_verify, "Save without asking the provider");
  auto* set_key_cmd = group->add_subcommand(
      "set-key", "Save a provider's key, typed hidden or read from stdin (not checked)");
  set_key_cmd->add_option("provider", *provider, "anthropic, openai, ...")->required();
  auto* logout_cmd = group->add_subcommand("logout", "Forget a saved key");
  auto* logout_provider =
      logout_cmd->add_option("provider", *provider, "The provider (needed when several are saved)");
  logout_cmd->add_flag("--all", *all, "Forget every saved key")->excludes(logout_provider);
  auto* status_cmd = group->add_subcommand(
      "status", "Each provider, where its key comes from (never the key) and the one in use");
  status_cmd->add_flag("--json", *json, "Machine-readable output");

  auto with_home = [&context](const std::function<Result<int>(const base::Home&)>& run) {
    auto home = base::Home::resolve();
    finish(context, command_name, home ? run(*home) : std::unexpected(std::move(home).error()));
  };
  login_cmd->callback([with_home, provider, no_verify] {
    with_home([&](const base::Home& home) { return login(home, *provider, !*no_verify); });
  });
  set_key_cmd->callback([with_home, provider] {
    with_home([&](const base::Home& home) { return save(home, *provider, false); });
  });
  logout_cmd->callback([with_home, provider, all] {
    with_home([&](const base::Home& home) { return logout(home, *provider, *all); });
  });
  status_cmd->callback([with_home, json] {
    with_home([&](const base::Home& home) { return status(home, *json); });
  });
}

}  // namespace ava::cli
