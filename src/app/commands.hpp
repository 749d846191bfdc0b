#pragma once

#include <CLI/CLI.hpp>

namespace ava::app {

// Shared by the subcommands of `ava`. Each command file adds its subcommand
// with add_*_commands(); the subcommand's callback runs it and stores the
// process exit code here. Commands print; the core packages never do.
struct CliContext {
  int exit_code = 0;
};

// One function per command file (src/app/cmd_<name>.cpp); cli.cpp calls each.
void add_session_commands(CLI::App& cli, CliContext& context);
void add_debug_commands(CLI::App& cli, CliContext& context);

}  // namespace ava::app
