// ava-eval: `ava eval diagnose|replay|benchmark` and `ava replay` run this
// binary (docs/eval.md). Only wiring: the eval package does the work.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ava/base/home.hpp"
#include "ava/base/version.hpp"
#include "ava/eval/diagnose.hpp"
#include "ava/eval/replay.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ava;

constexpr int exit_failed = 1;

int report_error(std::string_view command, const Error& error) {
  std::fprintf(stderr, "ava eval %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               error.message.c_str());
  return exit_failed;
}

// A log path (it has a '/' or ends in .zst), else the id of a log in
// AVA_HOME/sessions.
Result<fs::path> session_log(const std::string& arg) {
  if (arg.find('/') != std::string::npos || arg.ends_with(".zst")) return fs::path(arg);
  AVA_TRY(auto home, base::Home::resolve());
  return home.sessions() / (arg + ".jsonl.zst");
}

int diagnose(const std::vector<std::string>& sessions, bool json) {
  std::vector<eval::SessionDiagnosis> diagnoses;
  for (const auto& arg : sessions) {
    auto log = session_log(arg);
    if (!log) return report_error("diagnose", log.error());
    auto diagnosis = eval::diagnose_log(*log);
    if (!diagnosis)
      return report_error("diagnose", std::move(diagnosis.error()).with_context(log->string()));
    diagnoses.push_back(std::move(*diagnosis));
  }
  const std::string out = json ? eval::to_json(diagnoses).dump(2) + "\n" : eval::to_text(diagnoses);
  std::fputs(out.c_str(), stdout);
  return 0;
}

int replay(const std::string& dir, bool json) {
  auto report = eval::replay(dir);
  if (!report) return report_error("replay", report.error());
  if (json) {
    const nlohmann::json out{{"passed", report->passed},
                             {"refusal", report->refusal},
                             {"exchangesRecorded", report->exchanges_recorded},
                             {"exchangesReplayed", report->exchanges_replayed},
                             {"toolCalls", report->tool_calls},
                             {"outcome", report->outcome},
                             {"text", report->text}};
    std::fputs((out.dump(2) + "\n").c_str(), stdout);
  } else if (report->passed) {
    std::printf("replay passed: %d exchanges and %d tool calls as recorded; the turn ended %s\n",
                report->exchanges_replayed, report->tool_calls, report->outcome.c_str());
  } else {
    std::fprintf(stderr, "ava replay: refused: %s\n", report->refusal.c_str());
  }
  return report->passed ? 0 : exit_failed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"Ava's evaluation tools (docs/eval.md).", "ava eval"};
  cli.set_version_flag("-V,--version", "ava-eval " + std::string(base::version()));
  cli.require_subcommand(1);
  int exit_code = 0;

  std::vector<std::string> sessions;
  bool diagnose_json = false;
  auto* diagnose_command = cli.add_subcommand(
      "diagnose",
      "Repeated calls, errors, truncations, compactions, interrupted calls and steps "
      "with no progress in session logs, with their seqs and character counts");
  diagnose_command->add_option("sessions", sessions, "Session ids or log paths")->required();
  diagnose_command->add_flag("--json", diagnose_json, "Print JSON");
  diagnose_command->callback([&] { exit_code = diagnose(sessions, diagnose_json); });

  std::string recording;
  bool replay_json = false;
  auto* replay_command = cli.add_subcommand(
      "replay",
      "Replay a recording (ava -p --record DIR) with no provider and no real tool, and "
      "check every request and the outcome match");
  replay_command->add_option("recording", recording, "The recording's folder")->required();
  replay_command->add_flag("--json", replay_json, "Print JSON");
  replay_command->callback([&] { exit_code = replay(recording, replay_json); });

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  return exit_code;
}
