#include "ava/app/cli.hpp"

#include <CLI/CLI.hpp>

#include <array>
#include <string>
#include <string_view>

#include "app/commands.hpp"
#include "ava/base/log.hpp"
#include "ava/base/version.hpp"

namespace ava::app {
namespace {

// Building every subcommand with its options takes a few hundred small
// allocations (about 100 KB of fresh heap pages, each a page fault); a run
// that names none of them, like `ava -p PROMPT` or the server, skips that.
// Help lists them all. A word that only looks like a subcommand (a prompt
// "models") just builds them, as before.
bool names_a_subcommand(int argc, char** argv) {
  static constexpr std::array<std::string_view, 9> words{
      "session", "debug", "models", "backend", "mcp", "skill", "-h", "--help", "--help-all"};
  for (int i = 1; i < argc; ++i) {
    for (std::string_view word : words) {
      if (argv[i] == word) return true;
    }
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
  cli.require_subcommand(0, 1);

  CliContext context;
  if (names_a_subcommand(argc, argv)) {
    add_session_commands(cli, context);
    add_debug_commands(cli, context);
    add_models_commands(cli, context);
    add_backend_commands(cli, context);
    add_mcp_commands(cli, context);
    add_mcp_login_commands(mcp_command(cli), context);
    add_mcp_conformance_command(mcp_command(cli));
    add_skill_commands(cli, context);
  }
  add_prompt_options(cli, context);
  ServeFlags serve;
  add_serve_options(cli, serve);

  // Logging is set up before any subcommand callback runs.
  cli.parse_complete_callback([&] {
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

}  // namespace ava::app
