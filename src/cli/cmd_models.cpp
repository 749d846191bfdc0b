// `ava models [--json]`: the models of every configured provider, asked of
// the providers themselves (all at once), local servers found on their
// default ports, and the catalog. A provider that does not answer is
// reported on its own line; exit status 1 only when the settings are broken.
// `ava models pull NAME` downloads a model into Ollama, with progress.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "ava/ansi/render.hpp"
#include "ava/base/home.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/llm/factory.hpp"
#include "ava/llm/model_list.hpp"
#include "ava/llm/model_pull.hpp"
#include "ava/transport/proxy.hpp"
#include "cli/commands.hpp"
#include "cli/model_query.hpp"
#include "cli/progress_line.hpp"

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

std::string gigabytes(std::int64_t bytes) {
  return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9);
}

// "downloading 42% of 4.7 GB" for a layer with sizes, else Ollama's phase.
std::string pull_label(const llm::PullProgress& progress) {
  if (progress.total > 0 && progress.status.starts_with("pulling ")) {
    const auto percent = static_cast<int>(progress.completed * 100 / progress.total);
    return fmt::format("downloading {}% of {}", percent, gigabytes(progress.total));
  }
  return progress.status;
}

Result<int> pull_model(const std::string& name, const std::string& provider) {
  AVA_TRY_VOID(llm::check_pull_name(name));
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto settings, llm::load_settings(home));
  AVA_TRY(auto ollama, llm::resolve_provider(settings, provider, false));
  if (ollama.kind != llm::ProviderKind::ollama) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("'{}' is not an Ollama server; only Ollama downloads models on request "
                            "(LM Studio: `lms get`, llama.cpp: download a GGUF file)",
                            provider));
  }
  transport::HttpClientOptions options;
  // Ollama answers at once, then verifying a large file can be quiet for minutes.
  options.timeouts = {.connect = std::chrono::seconds(5),
                      .first_byte = std::chrono::seconds(60),
                      .idle = std::chrono::minutes(10)};
  options.proxy = transport::proxy_config_from_env(settings.env);

  const bool redraw = ansi::can_redraw(STDERR_FILENO);
  std::optional<ProgressLine> line;
  if (redraw) line.emplace(fmt::format("pulling {}", name), std::chrono::milliseconds(0));
  std::string last_status;
  auto observe = [&](const llm::PullProgress& progress) {
    if (line) {
      line->update(fmt::format("pulling {}: {}", name, pull_label(progress)));
    } else if (progress.status != last_status) {
      // Scripts and logs get each phase once, not every byte count.
      std::fprintf(stderr, "ava: %s\n", ansi::sanitize(progress.status).c_str());
      last_status = progress.status;
    }
  };
  asio::io_context io;
  std::optional<Result<void>> outcome;
  asio::co_spawn(
      io,
      llm::pull_ollama_model(io.get_executor(), ollama.base_url, name, std::move(options), observe),
      [&outcome](const std::exception_ptr&, Result<void> result) { outcome = std::move(result); });
  io.run();
  line.reset();
  if (!outcome) return fail(ErrorCode::internal, "the download stopped unexpectedly");
  if (!*outcome) {
    const Error& error = outcome->error();
    if (error.code == ErrorCode::unavailable || error.code == ErrorCode::timeout) {
      return fail(error.code, fmt::format("Ollama is not running at {} ({}); start it with "
                                          "`ollama serve` or set OLLAMA_HOST",
                                          ollama.base_url, error.message));
    }
    return fail(error.code,
                fmt::format("Ollama could not pull {}: {}", name, ansi::sanitize(error.message)));
  }
  std::printf("pulled %s into Ollama at %s\n", name.c_str(), ollama.base_url.c_str());
  return 0;
}

}  // namespace

void add_models_commands(CLI::App& cli, CliContext& context) {
  auto* models = cli.add_subcommand(
      "models", "List the models of the configured providers and of local servers found");
  auto json_flag = std::make_shared<bool>(false);
  models->add_flag("--json", *json_flag, "Print the list as JSON");
  auto* pull = models->add_subcommand("pull", "Download a model into Ollama, showing progress");
  auto name = std::make_shared<std::string>();
  auto provider = std::make_shared<std::string>("ollama");
  pull->add_option("NAME", *name, "The model, as Ollama names it (llama3.2, qwen2.5-coder:7b)")
      ->required();
  pull->add_option("--provider", *provider,
                   "An Ollama provider from settings.json (default: ollama, at OLLAMA_HOST)");
  pull->callback([&context, name, provider] {
    finish(context, CommandName{"models pull"}, pull_model(*name, *provider));
  });
  models->callback([&context, json_flag, pull] {
    if (pull->parsed()) return;
    finish(context, command_name, list_models(*json_flag));
  });
}

}  // namespace ava::cli
