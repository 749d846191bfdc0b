#include "ava/cli/cli.hpp"

#include <CLI/CLI.hpp>

#include <stdlib.h>

#include <array>
#include <string>
#include <string_view>

#include "ava/base/home.hpp"
#include "ava/base/log.hpp"
#include "ava/base/version.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

void add_all_mcp_commands(CLI::App& cli, CliContext& context) {
  add_mcp_commands(cli, context);
  add_mcp_login_commands(mcp_command(cli), context);
  add_mcp_conformance_command(mcp_command(cli), context);
}

// The top-level subcommands, in the order help lists them. Building one
// with its options takes many small allocations (all of them: about 100 KB
// of fresh heap pages, each a page fault), so a run builds only those its
// arguments name; `ava -p PROMPT` and the server build none. Help builds
// them all. A word that only looks like a subcommand (a prompt "models")
// just builds that one.
struct Subcommand {
  std::string_view name;
  void (*add)(CLI::App&, CliContext&);
};
constexpr std::array<Subcommand, 13> subcommands{{
    {"session", add_session_commands},
    {"debug", add_debug_commands},
    {"models", add_models_commands},
    {"backend", add_backend_commands},
    {"mcp", add_all_mcp_commands},
    {"skill", add_skill_commands},
    {"permissions", add_permissions_commands},
    {"settings", add_settings_commands},
    {"memory", add_memory_commands},
    {"automation", add_automation_commands},
    {"analytics", add_analytics_commands},
    {"eval", add_eval_commands},
    {"replay", add_replay_commands},
}};

bool has_argument(int argc, char** argv, std::string_view word) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == word) return true;
  }
  return false;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App cli{"Ava: a native coding-agent platform.", "ava"};
  cli.set_version_flag("-V,--version", "ava " + std::string(base::version()),
                       "Print the version and exit");
  std::string log_level = "warn";
  cli.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->envname("AVA_LOG")
      ->capture_default_str();
  std::string profile;
  cli.add_option("--profile", profile,
                 "Settings profile: AVA_HOME/profiles/NAME.json over settings.json")
      ->envname("AVA_PROFILE");
  cli.require_subcommand(0, 1);

  CliContext context;
  const bool help = has_argument(argc, argv, "-h") || has_argument(argc, argv, "--help");
  for (const auto& subcommand : subcommands) {
    if (help || has_argument(argc, argv, subcommand.name)) subcommand.add(cli, context);
  }
  add_prompt_options(cli, context);
  ServeFlags serve;
  add_serve_options(cli, serve);

  // Logging is set up before any subcommand callback runs.
  cli.parse_complete_callback([&] {
    // Every reader of the settings (and a backend this starts) sees it.
    if (!profile.empty()) ::setenv("AVA_PROFILE", profile.c_str(), 1);
    if (auto valid = base::active_profile(); !valid) {
      throw CLI::ValidationError("--profile", valid.error().message);
    }
    auto level = base::parse_log_level(log_level);
    if (!level) throw CLI::ValidationError("--log-level", level.error().message);
    if (auto logging = base::setup_logging({.level = *level}); !logging) {
      throw CLI::RuntimeError(logging.error().describe(), 1);
    }
  });

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (!cli.get_subcommands().empty() || context.ran) return context.exit_code;
  return run_serve(serve);
}

}  // namespace ava::cli
