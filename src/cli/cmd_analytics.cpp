// `ava analytics [show|update|rebuild]` (docs/analytics.md): the index
// derived from the session logs, brought up to date, and what it says.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/analytics/index.hpp"
#include "ava/prompts/project_context.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

constexpr CommandName command_name{.name = "analytics"};

struct AnalyticsFlags {
  std::string project;
  std::string model;
  std::string provider;
  std::string from;
  std::string to;
  bool json = false;
};

// A project given as any folder inside it counts as its repository's root,
// the key the index keeps.
Result<analytics::Filter> filter_of(const AnalyticsFlags& f) {
  analytics::Filter filter;
  if (!f.project.empty()) {
    std::error_code ec;
    namespace fs = std::filesystem;
    const auto absolute = fs::absolute(f.project, ec);
    if (ec) return fail(ErrorCode::invalid_argument, "--project: " + ec.message());
    const auto canonical = fs::weakly_canonical(absolute, ec);
    if (ec) return fail(ErrorCode::invalid_argument, "--project: " + ec.message());
    filter.project = prompts::repository_root(canonical).string();
  }
  if (!f.model.empty()) filter.model = f.model;
  if (!f.provider.empty()) filter.provider = f.provider;
  if (!f.from.empty()) filter.from_day = f.from;
  if (!f.to.empty()) filter.to_day = f.to;
  for (const auto& day : {filter.from_day, filter.to_day}) {
    if (day && !analytics::is_day(*day)) {
      return fail(ErrorCode::invalid_argument, "--from and --to are days: YYYY-MM-DD");
    }
  }
  return filter;
}

std::string tokens(std::int64_t n) {
  if (n >= 1'000'000) return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
  if (n >= 10'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  return std::to_string(n);
}

void print_rows(const char* title, const std::vector<analytics::UsageRow>& rows) {
  if (rows.empty()) return;
  std::printf("\n%s\n", title);
  for (const auto& row : rows) {
    std::fputs(fmt::format("  {:<40} {:>8} in {:>8} out {:>8} cached  ${:.4f}\n", row.key,
                           tokens(row.input_tokens), tokens(row.output_tokens),
                           tokens(row.cache_read_tokens), row.cost_usd)
                   .c_str(),
               stdout);
  }
}

Result<int> run(const AnalyticsFlags& flags, bool rebuild) {
  AVA_TRY(const auto filter, filter_of(flags));
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto index, analytics::Index::open(home));
  AVA_TRY(const auto updated, rebuild ? index.rebuild() : index.update());
  AVA_TRY(const auto summary, index.summary(filter));
  if (flags.json) {
    auto out = protocol::to_json(summary);
    out["update"] = {{"logsRead", updated.logs_read},
                     {"eventsIndexed", updated.events_indexed},
                     {"logsSkipped", updated.logs_skipped}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::fputs(fmt::format("{} sessions, {} turns, {} steps, {} tool calls\n", summary.sessions,
                         summary.turns, summary.steps, summary.tool_calls)
                 .c_str(),
             stdout);
  std::fputs(fmt::format("tokens: {} in, {} out, {} cache read ({:.0f}% of input read), {} cache "
                         "write; ${:.4f} at list prices\n",
                         tokens(summary.input_tokens), tokens(summary.output_tokens),
                         tokens(summary.cache_read_tokens), summary.cache_hit_ratio * 100,
                         tokens(summary.cache_write_tokens), summary.cost_usd)
                 .c_str(),
             stdout);
  if (summary.median_first_token_ms) {
    std::printf("time to first token: median %lld ms\n",
                static_cast<long long>(*summary.median_first_token_ms));
  }
  print_rows("By day (UTC)", summary.by_day);
  print_rows("By project", summary.by_project);
  print_rows("By model", summary.by_model);
  if (!summary.tools.empty()) std::puts("\nTools");
  for (const auto& tool : summary.tools) {
    std::fputs(fmt::format("  {:<40} {:>6} calls {:>5} errors {:>5} interrupted  {:.0f} ms mean\n",
                           tool.tool, tool.calls, tool.errors, tool.interrupted, tool.mean_ms)
                   .c_str(),
               stdout);
  }
  return 0;
}

}  // namespace

void add_analytics_commands(CLI::App& cli, CliContext& context) {
  auto* analytics = cli.add_subcommand(
      "analytics", "Usage, cost and tool statistics from the session logs (an index beside them)");
  struct Verb {
    const char* name;
    const char* help;
    bool rebuild;
  };
  for (const Verb& verb : {Verb{"show", "Update the index with new events and show it", false},
                           Verb{"rebuild", "Drop the index and read every log again", true}}) {
    auto flags = std::make_shared<AnalyticsFlags>();
    auto* command = analytics->add_subcommand(verb.name, verb.help);
    command->add_option("--project", flags->project, "Only this project folder");
    command->add_option("--model", flags->model, "Only this model");
    command->add_option("--provider", flags->provider, "Only this provider");
    command->add_option("--from", flags->from, "From this day (YYYY-MM-DD, UTC)");
    command->add_option("--to", flags->to, "To this day, inclusive");
    command->add_flag("--json", flags->json, "Print JSON");
    command->callback([&context, flags, rebuild = verb.rebuild] {
      finish(context, command_name, run(*flags, rebuild));
    });
  }
  analytics->require_subcommand(1);
}

}  // namespace ava::cli
