// `ava models [--json]`: the models of every configured provider, asked of
// the providers themselves (all at once), local servers found on their
// default ports, and the catalog. A provider that does not answer is
// reported on its own line; exit status 1 only when the settings are broken.

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"
#include "ava/llm/model_list.hpp"
#include "cli/commands.hpp"
#include "cli/model_query.hpp"

namespace ava::cli {

namespace {

namespace asio = boost::asio;
using nlohmann::json;

std::string tokens(std::int64_t count) {
  if (count >= 1'000'000) {
    return count % 1'000'000 == 0 ? fmt::format("{}M", count / 1'000'000)
                                  : fmt::format("{:.2f}M", static_cast<double>(count) / 1e6);
  }
  return count % 1000 == 0 ? fmt::format("{}k", count / 1000)
                           : fmt::format("{:.1f}k", static_cast<double>(count) / 1000);
}

std::string describe(const llm::ModelInfo& info) {
  std::string text =
      fmt::format("{} context, {} output", tokens(info.context_window), tokens(info.max_output));
  if (!info.known) return text + " (not in the catalog)";
  return text +
         fmt::format(", ${:.2f}/${:.2f} per MTok", info.input_per_mtok, info.output_per_mtok);
}

json model_json(const llm::ModelInfo& info) {
  return json{{"id", info.id},
              {"provider", info.provider_kind},
              {"known", info.known},
              {"contextWindow", info.context_window},
              {"maxOutput", info.max_output},
              {"inputPerMTok", info.input_per_mtok},
              {"outputPerMTok", info.output_per_mtok},
              {"cacheReadPerMTok", info.cache_read_per_mtok},
              {"cacheWritePerMTok", info.cache_write_per_mtok},
              {"tools", info.tools},
              {"images", info.images},
              {"thinking", info.thinking}};
}

json to_json(const std::vector<llm::ProviderModels>& listed, const llm::Settings& settings) {
  json providers = json::array();
  for (const auto& entry : listed) {
    const auto& source = entry.source;
    json models = json::array();
    for (const auto& id : entry.models)
      models.push_back(model_json(llm::model_info(id, &settings)));
    providers.push_back(json{{"name", source.provider},
                             {"kind", llm::to_string(source.kind)},
                             {"baseUrl", source.base_url},
                             {"configured", source.configured},
                             {"detected", !source.configured && entry.reachable},
                             {"inUse", source.in_use},
                             {"defaultModel", source.default_model},
                             {"reachable", entry.reachable},
                             {"error", entry.error.empty() ? json(nullptr) : json(entry.error)},
                             {"models", std::move(models)}});
  }
  json catalog = json::array();
  for (const auto& info : llm::model_catalog()) catalog.push_back(model_json(info));
  return json{{"providers", std::move(providers)}, {"catalog", std::move(catalog)}};
}

std::string to_text(const std::vector<llm::ProviderModels>& listed, const llm::Settings& settings) {
  std::string out;
  bool any_configured = false;
  for (const auto& entry : listed) {
    const auto& source = entry.source;
    any_configured = any_configured || source.configured;
    if (!source.configured && !entry.reachable) {
      out += fmt::format("{}: not detected at {}\n", source.provider, source.base_url);
      continue;
    }
    std::string tags = source.configured ? std::string(llm::to_string(source.kind)) : "detected";
    if (source.in_use) tags += ", in use";
    out += fmt::format("{} ({}){}{}\n", source.provider, tags, source.base_url.empty() ? "" : " ",
                       source.base_url);
    if (!entry.error.empty()) out += fmt::format("  error: {}\n", entry.error);
    for (const auto& id : entry.models) {
      out += fmt::format("  {}{}  {}\n", id, id == source.default_model ? " (default)" : "",
                         describe(llm::model_info(id, &settings)));
    }
  }
  if (!any_configured) {
    out += std::string(llm::no_provider_message()) + "\n";
  }
  out += "\ncatalog:\n";
  for (const auto& info : llm::model_catalog()) {
    out += fmt::format("  {} ({})  {}\n", info.id, info.provider_kind, describe(info));
  }
  return out;
}

constexpr CommandName command_name{"models"};

Result<int> list_models(bool as_json) {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto settings, llm::load_settings(home));
  AVA_TRY(auto probes, llm::local_probes(settings.env));
  auto listed = query_all(llm::model_sources(settings, probes), settings);
  // Bytes that are not UTF-8 (a base URL from the environment can hold
  // anything) are replaced rather than thrown on.
  std::string out =
      as_json ? to_json(listed, settings).dump(2, ' ', false, json::error_handler_t::replace) + "\n"
              : to_text(listed, settings);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void add_models_commands(CLI::App& cli, CliContext& context) {
  auto* models = cli.add_subcommand(
      "models", "List the models of the configured providers and of local servers found");
  auto json_flag = std::make_shared<bool>(false);
  models->add_flag("--json", *json_flag, "Print the list as JSON");
  models->callback(
      [&context, json_flag] { finish(context, command_name, list_models(*json_flag)); });
}

}  // namespace ava::cli
