#include <cstdio>
#include <filesystem>
#include <string>

#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/ansi/render.hpp"
#include "ava/base/home.hpp"
#include "ava/session/inspect.hpp"
#include "cli/commands.hpp"
#include "cli/session_paths.hpp"

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

struct ListFlags {
  bool json = false;
  bool here = false;
  std::size_t limit = 20;
};

std::string local_time(std::int64_t unix_ms) {
  const std::time_t seconds = unix_ms / 1000;
  std::tm local{};
  ::localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
  return text;
}

// `ava session list`: the conversations of this home, newest first, from
// `-p`, `ava chat` and the backend alike (they share AVA_HOME/sessions).
Result<int> list(const ListFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  std::error_code ec;
  const auto cwd = flags.here ? std::filesystem::current_path(ec) : std::filesystem::path();
  const auto sessions = list_sessions(home, cwd, flags.limit);
  if (flags.json) {
    auto rows = nlohmann::json::array();
    for (const auto& session : sessions) {
      rows.push_back({{"session_id", session.id},
                      {"log", session.log.string()},
                      {"modified_ms", session.modified_ms},
                      {"cwd", session.cwd},
                      {"provider", session.provider},
                      {"model", session.model},
                      {"first_input", session.first_input}});
    }
    std::fputs((rows.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(),
               stdout);
    return 0;
  }
  if (sessions.empty()) {
    std::fputs(
        flags.here ? "No conversations started in this folder.\n" : "No conversations yet.\n",
        stdout);
    return 0;
  }
  const auto style = ansi::style_for(1);
  for (const auto& session : sessions) {
    std::string line = ansi::paint(session.id, "1", style) + "  " + local_time(session.modified_ms);
    if (!flags.here) line += "  " + ansi::sanitize(session.cwd);
    line += "\n    " + ansi::paint(ansi::one_line(ansi::sanitize(session.first_input.empty()
                                                                     ? "(no input)"
                                                                     : session.first_input),
                                                  style.width - 6),
                                   "2", style);
    std::fputs((line + "\n").c_str(), stdout);
  }
  std::fputs(ansi::paint("Continue one with: ava chat --resume ID", "2", style).c_str(), stdout);
  std::fputs("\n", stdout);
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

  auto* list_command =
      session->add_subcommand("list", "The conversations of this home, newest first");
  auto list_flags = std::make_shared<ListFlags>();
  list_command->add_flag("--json", list_flags->json, "Print them as a JSON array");
  list_command->add_flag("--here", list_flags->here, "Only those started in this folder");
  list_command->add_option("--limit,-n", list_flags->limit, "How many at most")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  list_command->callback(
      [&context, list_flags] { finish(context, CommandName{"session list"}, list(*list_flags)); });
}

}  // namespace ava::cli
