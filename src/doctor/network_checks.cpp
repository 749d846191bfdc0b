// The checks that ask other processes: every provider and local model server
// lists its models, every enabled MCP server starts, all at once.
#include <cctype>
#include <exception>
#include <optional>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/base/clock.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_hub.hpp"
#include "ava/llm/codex_login.hpp"
#include "ava/llm/model_list.hpp"
#include "doctor/checks.hpp"

namespace ava::doctor {
namespace {

// A bearer token (ANTHROPIC_AUTH_TOKEN, resolve_provider) stands in for a key.
bool has_bearer(const llm::ModelSource& source) {
  for (const auto& header : source.headers) {
    std::string name = header.name;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "authorization") return true;
  }
  return false;
}

namespace asio = boost::asio;

bool takes_key(llm::ProviderKind kind) {
  return kind == llm::ProviderKind::anthropic || kind == llm::ProviderKind::openai ||
         kind == llm::ProviderKind::openai_responses;
}

std::string key_fix(const llm::ModelSource& source, const llm::Settings& settings) {
  auto resolved = llm::resolve_provider(settings, source.provider, source.in_use);
  const std::string variable = resolved ? resolved->key_variable : std::string();
  return variable.empty()
             ? fmt::format("ava auth login {}", source.provider)
             : fmt::format("ava auth login {} (or export {})", source.provider, variable);
}

// The codex provider is not asked for models: its login is what can fail.
Finding codex_finding(const std::string& name, const llm::Settings& settings) {
  const std::string fix = "run `codex login` (the Codex CLI), or choose another provider";
  if (settings.codex_login.empty())
    return {"provider", Level::fail, name + ": no Codex login (~/.codex/auth.json)", fix};
  auto auth = llm::read_codex_auth(settings.codex_login);
  if (!auth || !auth->tokens)
    return {"provider", Level::fail,
            fmt::format("{}: {}", name, auth ? "no ChatGPT tokens" : auth.error().message), fix};
  const auto days = (base::unix_ms_now() - auth->tokens->last_refresh_ms) / (24 * 3600 * 1000);
  return {"provider", Level::ok,
          fmt::format("{} uses the Codex CLI's login in {} (refreshed {})", name,
                      settings.codex_login.string(),
                      auth->tokens->last_refresh_ms == 0 ? std::string("at an unknown time")
                                                         : fmt::format("{} days ago", days)),
          ""};
}

Finding provider_finding(const llm::ProviderModels& listed, const llm::Settings& settings) {
  const auto& source = listed.source;
  const std::string name =
      source.in_use ? fmt::format("{} (in use)", source.provider) : source.provider;
  if (source.kind == llm::ProviderKind::codex) return codex_finding(name, settings);
  if (listed.reachable) {
    return {
        "provider", Level::ok,
        fmt::format("{} answers at {} ({} models)", name, source.base_url, listed.models.size()),
        ""};
  }
  const bool refused = listed.error.find("401") != std::string::npos ||
                       listed.error.find("403") != std::string::npos;
  return {"provider", source.in_use ? Level::fail : Level::warn,
          fmt::format("{} at {}: {}", name, source.base_url, listed.error),
          refused ? key_fix(source, settings)
                  : "check the network, the proxy variables, or its baseUrl in settings.json"};
}

struct McpOutcome {
  std::string name;
  std::optional<Result<capabilities::McpProbe>> probe;
};

Finding mcp_finding(const McpOutcome& outcome) {
  if (!outcome.probe || !*outcome.probe) {
    const std::string why =
        outcome.probe ? outcome.probe->error().message : std::string("no outcome");
    const bool sign_in = why.find("sign") != std::string::npos ||
                         why.find("401") != std::string::npos ||
                         why.find("OAuth") != std::string::npos;
    return {"mcp", Level::fail, fmt::format("{} does not start: {}", outcome.name, why),
            sign_in ? fmt::format("ava mcp login {}", outcome.name)
                    : fmt::format("ava mcp test {} shows the details; ava mcp disable {} turns it "
                                  "off",
                                  outcome.name, outcome.name)};
  }
  const auto& probe = **outcome.probe;
  return {"mcp", Level::ok,
          fmt::format("{} started ({} {}, {} tools)", outcome.name, probe.server.name,
                      probe.server.version, probe.tools.size()),
          ""};
}

}  // namespace

void check_network(const base::Home& home, const Options& options, std::vector<Finding>& out) {
  auto settings = llm::load_settings(home, options.env);
  if (!settings) {
    out.push_back({"settings", Level::fail, settings.error().message,
                   "correct the file named; Ava does not start agents until it reads"});
    return;
  }
  std::vector<llm::LocalProbe> probes;
  if (auto found = llm::local_probes(options.env)) {
    probes = std::move(*found);
  } else {
    out.push_back({"local", Level::warn, found.error().message, "correct AVA_LOCAL_PROBE"});
  }
  auto sources = llm::model_sources(*settings, probes);

  asio::io_context io;
  std::vector<std::optional<llm::ProviderModels>> listed(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& source = sources[i];
    if (!source.error.empty()) continue;
    if (source.configured && takes_key(source.kind) && source.api_key.empty() &&
        !has_bearer(source))
      continue;
    asio::co_spawn(
        io, llm::query_models(io.get_executor(), source, llm::listing_options(source, *settings)),
        [&listed, i](const std::exception_ptr& failure, llm::ProviderModels models) {
          if (!failure) listed[i] = std::move(models);
        });
  }
  std::vector<McpOutcome> servers;
  if (options.check_mcp) {
    auto store = capabilities::CapabilitiesStore::open(home);
    auto entries =
        store ? store->servers()
              : Result<std::vector<capabilities::McpServerEntry>>(std::unexpected(store.error()));
    if (!entries) {
      out.push_back({"mcp", Level::fail, entries.error().message,
                     "move capabilities.sqlite3 aside; `ava mcp import` can restore servers"});
    } else {
      for (auto& entry : *entries) {
        if (entry.enabled) servers.push_back({entry.name, std::nullopt});
      }
      std::size_t next = 0;
      for (auto& entry : *entries) {
        if (!entry.enabled) continue;
        auto* slot = &servers[next++];
        asio::co_spawn(
            io,
            capabilities::probe_server(io.get_executor(), std::move(entry), home,
                                       options.mcp_timeout),
            [slot](const std::exception_ptr& failure, Result<capabilities::McpProbe> probe) {
              if (!failure) slot->probe = std::move(probe);
            });
      }
    }
  }
  io.run();

  bool any_provider = false;
  bool any_local = false;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& source = sources[i];
    if (source.configured) {
      any_provider = any_provider || source.in_use;
      if (!source.error.empty()) {
        out.push_back({"provider", Level::fail,
                       fmt::format("{}: {}", source.provider, source.error),
                       "correct its entry in settings.json"});
      } else if (takes_key(source.kind) && source.api_key.empty() && !has_bearer(source)) {
        out.push_back({"provider", source.in_use ? Level::fail : Level::warn,
                       fmt::format("{} has no key", source.provider), key_fix(source, *settings)});
      } else if (listed[i]) {
        out.push_back(provider_finding(*listed[i], *settings));
      }
    } else if (listed[i] && listed[i]->reachable) {
      any_local = true;
      const auto& models = listed[i]->models;
      out.push_back({"local", Level::ok,
                     fmt::format("{} found at {} ({} models{})", source.provider, source.base_url,
                                 models.size(), models.empty() ? ", none pulled yet" : ""),
                     any_provider ? ""
                                  : fmt::format("use it: AVA_PROVIDER={} or \"provider\": \"{}\" "
                                                "in settings.json",
                                                source.provider, source.provider)});
    }
  }
  if (!any_local) {
    out.push_back(
        {"local", Level::info, "no local model server (Ollama, LM Studio, llama.cpp)", ""});
  }
  if (!any_provider) {
    out.push_back({"provider", any_local ? Level::warn : Level::fail, "no provider is configured",
                   any_local ? "use the local server found above, or ava auth login (a key)"
                             : "ava auth login (a key), or run Ollama, LM Studio or llama.cpp"});
  }
  for (const auto& server : servers) out.push_back(mcp_finding(server));
  if (options.check_mcp && servers.empty()) {
    out.push_back({"mcp", Level::info, "no MCP server is enabled", ""});
  }
}

}  // namespace ava::doctor
