#pragma once

#include <CLI/CLI.hpp>

#include <string_view>

#include "ava/base/error.hpp"

namespace ava::cli {

// Shared by the subcommands of `ava`. Each command file adds its subcommand
// with add_*_commands(); the subcommand's callback runs it and hands the
// outcome to finish(), which stores the process exit code here. Commands
// print; the core packages never do.
struct CliContext {
  int exit_code = 0;
  bool ran = false;  // a top-level mode (-p) ran instead of a subcommand
};

// How a command names itself in its error messages.
struct CommandName {
  std::string_view name;  // "mcp" prints "ava mcp: ..."; empty prints "ava: ..."
  bool redact = false;    // mask credentials the message may quote (base::redact)
};

// How every command ends (outcome.cpp). A command returns Result<int>: its
// exit code when it ran (0, or an answer such as 3 from `backend status`, 1
// from `debug stream` on a failed stream, 130 from an aborted `-p`), else
// the Error, which finish() prints as "ava <name>: <message>" on stderr and
// ends with exit code 1.
//
// Exit code 2 is a usage error: what was asked cannot run as given (`debug
// stream`'s file or provider, `mcp add` flags or name, a malformed `mcp
// import`, `mcp login` of a server that cannot sign in, `-p` without a
// prompt, or with settings, folder, session or agent options that do not
// work). The ErrorCode cannot tell it apart: the same code ends different
// commands differently (invalid_argument from AVA_LOCAL_PROBE exits `ava
// models` with 1, from `ava mcp add` with 2). So such a failure goes through
// usage_error(), which prints it the same way and returns 2 for the command
// to return as its exit code.
inline constexpr int exit_failed = 1;
inline constexpr int exit_usage = 2;
void finish(CliContext& context, CommandName command, Result<int> outcome);
int usage_error(CommandName command, const Error& error);

// One function per command file (src/cli/cmd_<name>.cpp); cli.cpp calls each.
void add_session_commands(CLI::App& cli, CliContext& context);
void add_sandbox_exec_command(CLI::App& cli, CliContext& context);
void add_debug_commands(CLI::App& cli, CliContext& context);
void add_models_commands(CLI::App& cli, CliContext& context);
void add_backend_commands(CLI::App& cli, CliContext& context);
// `ava auth login|set-key|logout|status` (cmd_auth.cpp).
void add_auth_commands(CLI::App& cli, CliContext& context);
// `ava doctor` (cmd_doctor.cpp).
void add_doctor_commands(CLI::App& cli, CliContext& context);
// `ava service install|uninstall|status|logs` (cmd_service.cpp).
void add_service_commands(CLI::App& cli, CliContext& context);
// `ava machine add|list|remove|test` (cmd_machine.cpp): remote machines over SSH.
void add_machine_commands(CLI::App& cli, CliContext& context);
// `ava mcp ...` (cmd_mcp.cpp). Other files attach their own `mcp`
// subcommands to mcp_command(cli), which creates it on first use.
void add_mcp_commands(CLI::App& cli, CliContext& context);
CLI::App& mcp_command(CLI::App& cli);
// `ava mcp conformance-client`, attached to the `mcp` subcommand.
void add_mcp_conformance_command(CLI::App& mcp, CliContext& context);
// `ava mcp login|logout` (cmd_mcp_login.cpp).
void add_mcp_login_commands(CLI::App& mcp, CliContext& context);
// `ava permissions` (cmd_permissions.cpp).
void add_permissions_commands(CLI::App& cli, CliContext& context);
// `ava analytics show|rebuild` (cmd_analytics.cpp).
void add_analytics_commands(CLI::App& cli, CliContext& context);
// `ava automation ...` (cmd_automation.cpp), through the backend's API.
void add_automation_commands(CLI::App& cli, CliContext& context);
// `ava eval ...` and `ava replay DIR` (cmd_eval.cpp): run ava-eval.
void add_eval_commands(CLI::App& cli, CliContext& context);
void add_replay_commands(CLI::App& cli, CliContext& context);
// `ava memory list|dream` (cmd_memory.cpp).
void add_memory_commands(CLI::App& cli, CliContext& context);
// `ava settings show` (cmd_settings.cpp).
void add_settings_commands(CLI::App& cli, CliContext& context);
// `ava skill list|enable|disable|reset` (cmd_skill.cpp).
void add_skill_commands(CLI::App& cli, CliContext& context);
// `ava chat [--resume [ID]]` (cmd_chat.cpp): a conversation at the terminal.
void add_chat_commands(CLI::App& cli, CliContext& context);
// `ava acp` (cmd_acp.cpp): the Agent Client Protocol on stdin/stdout.
void add_acp_commands(CLI::App& cli, CliContext& context);
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
