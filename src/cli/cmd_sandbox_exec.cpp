// `ava sandbox-exec`: runs a command inside a sandbox, with the bash tool's
// environment. Not for people: `ava acp` has an editor's terminal start
// commands this way, so the conversation's sandbox holds there too.

#include <string>
#include <vector>

#include "ava/proc/sandbox_exec.hpp"
#include "cli/commands.hpp"

namespace ava::cli {

namespace {

constexpr CommandName command_name{"sandbox-exec"};

struct SandboxExecFlags {
  std::string mode = "off";
  std::vector<std::string> writable;
  bool network = false;
  std::vector<std::string> keep;
  std::vector<std::string> argv;
};

Result<int> run_sandbox_exec(const SandboxExecFlags& flags) {
  AVA_TRY(const auto mode, proc::parse_sandbox_mode(flags.mode));
  proc::Sandbox sandbox{.mode = mode, .writable_roots = {}, .network = flags.network};
  for (const auto& root : flags.writable) sandbox.writable_roots.emplace_back(root);
  // Returns only when nothing ran.
  return std::unexpected(proc::exec_sandboxed(flags.argv, sandbox, flags.keep));
}

}  // namespace

void add_sandbox_exec_command(CLI::App& cli, CliContext& context) {
  auto flags = std::make_shared<SandboxExecFlags>();
  auto* command = cli.add_subcommand("sandbox-exec", "Run a command in Ava's sandbox (internal)");
  command->group("");  // hidden: editors' terminals run it for `ava acp`
  command->add_option("--mode", flags->mode, "read-only, workspace-write or off");
  // One value each: a repeated option, so what follows `--` stays the command's.
  command->add_option("--writable", flags->writable, "A folder commands may change (repeatable)")
      ->allow_extra_args(false);
  command->add_flag("--network", flags->network, "Allow network connections");
  command->add_option("--keep", flags->keep, "A secret-looking variable to keep (repeatable)")
      ->allow_extra_args(false);
  command->add_option("argv", flags->argv, "The command and its arguments, after --")->required();
  command->callback([&context, flags] { finish(context, command_name, run_sandbox_exec(*flags)); });
}

}  // namespace ava::cli
