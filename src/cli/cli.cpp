#include "ava/cli/cli.hpp"

#include <CLI/CLI.hpp>

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
constexpr std::array<Subcommand, 20> subcommands{{
    {"chat", add_chat_commands},
    {"acp", add_acp_commands},
    {"session", add_session_commands},
    {"debug", add_debug_commands},
    {"models", add_models_commands},
    {"auth", add_auth_commands},
    {"backend", add_backend_commands},
    {"service", add_service_commands},
    {"doctor", add_doctor_commands},
    {"machine", add_machine_commands},
    {"mcp", add_all_mcp_commands},
    {"skill", add_skill_commands},
    {"permissions", add_permissions_commands},
    {"settings", add_settings_commands},
    {"memory", add_memory_commands},
    {"automation", add_automation_commands},
    {"analytics", add_analytics_commands},
    {"eval", add_eval_commands},
    {"replay", add_replay_commands},
    {"sandbox-exec", add_sandbox_exec_command},
}};

bool has_argument(int argc, char** argv, std::string_view word) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == word) return true;
  }
  return false;
}

// Edits (insert, delete, substitute, swap two neighbours) from a to b.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// `ava modles`: a first word that is no command but nearly one (and no -p
// makes it a prompt) is a typo, not a prompt missing its -p.
std::optional<std::string_view> mistyped_command(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || has_argument(argc, argv, "-p") ||
      has_argument(argc, argv, "--print")) {
    return std::nullopt;
  }
  const std::string_view word = argv[1];
  std::optional<std::string_view> best;
  std::size_t best_distance = 3;  // at most two edits
  for (const auto& subcommand : subcommands) {
    if (subcommand.name == word) return std::nullopt;
    const auto distance = edit_distance(word, subcommand.name);
    if (distance < best_distance && distance < subcommand.name.size()) {
      best = subcommand.name;
      best_distance = distance;
    }
  }
  return best;
}

// CLI11's own errors as Ava's: "ava: ..." on stderr, exit 2 (a usage
// error), help and version as CLI11 prints them.
int parse_failure(CLI::App& cli, const CLI::ParseError& error) {
  if (error.get_exit_code() == 0) return cli.exit(error);  // --help, --version
  if (dynamic_cast<const CLI::RuntimeError*>(&error) != nullptr) {
    std::fprintf(stderr, "ava: %s\n", error.what());
    return error.get_exit_code();
  }
  std::fprintf(stderr, "ava: %s\nRun 'ava --help' for the commands and options.\n", error.what());
  return exit_usage;
}

// `ava --help` in groups, with examples and the environment it reads.
void arrange_help(CLI::App& cli) {
  const std::array<std::pair<std::string_view, std::string_view>, 4> groups{{
      {"-p --print --output-format --include-partial-messages --verbose --record", "Prompt (-p)"},
      {"--model --provider --cwd --session -c --continue --max-steps --system-prompt "
       "--append-system-prompt --mcp-wait --no-mcp --permission-mode --allowed-tools "
       "--disallowed-tools --sandbox",
       "Agent (-p, ava chat, -c)"},
      {"--serve --port --no-open", "Server (bare ava, --serve)"},
      {"--log-level --profile -V --version -h --help", "General"},
  }};
  for (auto* option : cli.get_options()) {
    for (const auto& [names, group] : groups) {
      std::string_view rest = names;
      bool found = false;
      while (!rest.empty() && !found) {
        const auto end = rest.find(' ');
        const auto word = rest.substr(0, end);
        found = option->check_name(std::string(word));
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      }
      if (found) option->group(std::string(group));
    }
  }
  cli.footer(R"(Examples:
  ava chat                               talk to the agent in this terminal
  ava -c                                 continue the latest conversation here
  ava -p "fix the failing test" --output-format stream-json
  ava                                    the web UI and API on 127.0.0.1
  ava backend start                      the persistent backend (ava service install: at login)
  ava doctor                             what works, what does not, and the fix

Environment:
  AVA_HOME            where settings, keys, sessions and logs live (default ~/.ava)
  AVA_PROFILE         settings profile (as --profile)       AVA_LOG   log level (as --log-level)
  AVA_PROVIDER, AVA_MODEL, AVA_API_KEY, AVA_BASE_URL     the provider, over settings.json
  ANTHROPIC_API_KEY, OPENAI_API_KEY (and *_BASE_URL)     provider keys (ava auth stores them too)
  AVA_MOCK_SCRIPT     the mock provider's script (--provider mock; tests and demos)
  AVA_MCP_WAIT_MS     how long -p and chat wait for MCP servers (as --mcp-wait)
  NO_COLOR            no colour in ava chat and the listings

Exit codes: 0 done, 1 failed, 2 usage error, 3 backend not running (backend status),
130 interrupted. docs/cli.md has the details.)");
}

}  // namespace

int run_cli(int argc, char** argv) {
  if (const auto near = mistyped_command(argc, argv)) {
    std::fprintf(stderr, "ava: unknown command '%s'; did you mean '%.*s'?\n", argv[1],
                 static_cast<int>(near->size()), near->data());
    return exit_usage;
  }
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
  if (help) arrange_help(cli);

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
    return parse_failure(cli, e);
  }
  if (!cli.get_subcommands().empty() || context.ran) return context.exit_code;
  return run_serve(serve);
}

}  // namespace ava::cli
