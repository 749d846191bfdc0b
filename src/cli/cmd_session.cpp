#include <cstdio>
#include <filesystem>
#include <string>

#include "ava/base/home.hpp"
#include "ava/session/inspect.hpp"
#include "cli/commands.hpp"

namespace ava::cli {

namespace {

// A session id names AVA_HOME/sessions/<id>.jsonl.zst; anything with a slash
// or an existing file is taken as a path.
Result<std::filesystem::path> resolve_log(const std::string& id_or_path) {
  if (id_or_path.find('/') != std::string::npos || std::filesystem::exists(id_or_path)) {
    return std::filesystem::path(id_or_path);
  }
  AVA_TRY(auto home, base::Home::resolve());
  return home.sessions() / (id_or_path + ".jsonl.zst");
}

constexpr CommandName command_name{"session inspect"};

Result<int> inspect(const std::string& id_or_path, bool json) {
  AVA_TRY(auto path, resolve_log(id_or_path));
  AVA_TRY(auto report, session::inspect_log(path));
  const std::string out = json ? session::to_json(report).dump(2) + "\n" : session::to_text(report);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void add_session_commands(CLI::App& cli, CliContext& context) {
  auto* session = cli.add_subcommand("session", "Work with session logs");
  session->require_subcommand(1);
  auto* inspect_command =
      session->add_subcommand("inspect", "Report on a session log without modifying it");
  auto id = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  inspect_command->add_option("session", *id, "Session id (in AVA_HOME/sessions) or log path")
      ->required();
  inspect_command->add_flag("--json", *json, "Print the report as JSON");
  inspect_command->callback(
      [&context, id, json] { finish(context, command_name, inspect(*id, *json)); });
}

}  // namespace ava::cli
