#pragma once

#include <CLI/CLI.hpp>

namespace ava::cli {

// Shared by the subcommands of `ava`. Each command file adds its subcommand
// with add_*_commands(); the subcommand's callback runs it and stores the
// process exit code here. Commands print; the core packages never do.
struct CliContext {
  int exit_code = 0;
  bool ran = false;  // a top-level mode (-p) ran instead of a subcommand
};

// One function per command file (src/cli/cmd_<name>.cpp); cli.cpp calls each.
void add_session_commands(CLI::App& cli, CliContext& context);
void add_debug_commands(CLI::App& cli, CliContext& context);
void add_models_commands(CLI::App& cli, CliContext& context);
void add_backend_commands(CLI::App& cli, CliContext& context);
// `ava mcp ...` (cmd_mcp.cpp). Other files attach their own `mcp`
// subcommands to mcp_command(cli), which creates it on first use.
void add_mcp_commands(CLI::App& cli, CliContext& context);
CLI::App& mcp_command(CLI::App& cli);
// `ava mcp conformance-client`, attached to the `mcp` subcommand.
void add_mcp_conformance_command(CLI::App& mcp);
// `ava mcp login|logout` (cmd_mcp_login.cpp).
void add_mcp_login_commands(CLI::App& mcp, CliContext& context);
// `ava skill list|enable|disable|reset` (cmd_skill.cpp).
void add_skill_commands(CLI::App& cli, CliContext& context);
// `ava -p`: top-level options rather than a subcommand.
void add_prompt_options(CLI::App& cli, CliContext& context);

// `ava --serve` (and bare `ava`): runs after parsing when nothing else ran.
struct ServeFlags {
  bool serve = false;
  int port = 0;
  bool no_open = false;
};
void add_serve_options(CLI::App& cli, ServeFlags& flags);
int run_serve(const ServeFlags& flags);

}  // namespace ava::cli
