// ava-eval: `ava eval diagnose|replay|benchmark` and `ava replay` run this
// binary (docs/eval.md). Only wiring: the eval package does the work.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "ava/base/home.hpp"
#include "ava/base/version.hpp"
#include "ava/eval/benchmark.hpp"
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
                             {"turns", report->turns},
                             {"outcome", report->outcome},
                             {"text", report->text}};
    std::fputs((out.dump(2) + "\n").c_str(), stdout);
  } else if (report->passed) {
    if (report->turns > 1) {
      std::printf(
          "replay passed: %d exchanges and %d tool calls in %d turns as recorded; the last "
          "ended %s\n",
          report->exchanges_replayed, report->tool_calls, report->turns, report->outcome.c_str());
    } else {
      std::printf("replay passed: %d exchanges and %d tool calls as recorded; the turn ended %s\n",
                  report->exchanges_replayed, report->tool_calls, report->outcome.c_str());
    }
  } else {
    std::fprintf(stderr, "ava replay: refused: %s\n", report->refusal.c_str());
  }
  return report->passed ? 0 : exit_failed;
}

void print_trial(const nlohmann::json& line) {
  const auto& infrastructure = line["infrastructure"];
  const auto& completion = line["completion"];
  std::string what;
  if (!infrastructure.is_null()) {
    what = fmt::format("infrastructure failure ({}): {}", infrastructure.value("stage", ""),
                       infrastructure.value("message", ""));
  } else {
    what = fmt::format("{} ({}, {} steps, {:.1f} s)",
                       line["grade"].value("passed", false) ? "passed" : "failed",
                       completion.value("outcome", "?"), completion.value("steps", 0),
                       line["resources"].value("wallMs", 0) / 1000.0);
  }
  std::fprintf(stderr, "%s  %s #%d: %s\n", line.value("task", "").c_str(),
               line.value("candidate", "").c_str(), line.value("trial", 0), what.c_str());
}

int print_comparison(const std::vector<fs::path>& runs, bool json, std::string_view command) {
  auto comparison = eval::compare_runs(runs);
  if (!comparison) return report_error(command, comparison.error());
  const std::string out =
      json ? eval::to_json(*comparison).dump(2) + "\n" : eval::to_text(*comparison);
  std::fputs(out.c_str(), stdout);
  return 0;
}

struct BenchmarkFlags {
  std::string tasks;
  std::vector<std::string> candidates;
  int trials = 1;
  std::string out;
  bool json = false;
};

int benchmark(const BenchmarkFlags& flags) {
  eval::BenchmarkOptions options{.tasks_dir = flags.tasks, .trials = flags.trials};
  for (const auto& spec : flags.candidates) {
    auto candidate = eval::parse_candidate(spec);
    if (!candidate) return report_error("benchmark", candidate.error());
    options.candidates.push_back(std::move(*candidate));
  }
  options.out =
      flags.out.empty()
          ? fs::path(fmt::format("benchmark-{:%Y%m%d-%H%M%S}", fmt::gmtime(std::time(nullptr))))
          : fs::path(flags.out);
  options.on_trial = print_trial;
  if (auto ran = eval::run_benchmark(options); !ran) return report_error("benchmark", ran.error());
  std::fprintf(stderr, "results: %s\n", (options.out / "results.jsonl").c_str());
  return print_comparison({options.out}, flags.json, "benchmark");
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

  BenchmarkFlags bench;
  auto* benchmark_command = cli.add_subcommand(
      "benchmark",
      "Run tasks (folders with task.json and repo/) with candidates in fresh copies, grade them "
      "and compare the candidates on complete samples");
  benchmark_command->add_option("tasks", bench.tasks, "The folder of task folders")->required();
  benchmark_command
      ->add_option(
          "--candidate", bench.candidates,
          "NAME=key=value,... (provider, model, base-url, max-steps, permission-mode, "
          "system-prompt-file, append-system-prompt-file, settings, ava) or NAME=@FILE.json")
      ->required();
  benchmark_command->add_option("--trials", bench.trials, "Trials per task and candidate")
      ->check(CLI::Range(1, 1000));
  benchmark_command->add_option("--out", bench.out,
                                "A new folder for the run (default: ./benchmark-<time>)");
  benchmark_command->add_flag("--json", bench.json, "Print the comparison as JSON");
  benchmark_command->callback([&] { exit_code = benchmark(bench); });

  std::vector<std::string> runs;
  bool compare_json = false;
  auto* compare_command = cli.add_subcommand(
      "compare",
      "Compare the candidates of one or more benchmark runs on complete compatible samples");
  compare_command->add_option("runs", runs, "Benchmark output folders")->required();
  compare_command->add_flag("--json", compare_json, "Print JSON");
  compare_command->callback([&] {
    exit_code =
        print_comparison(std::vector<fs::path>(runs.begin(), runs.end()), compare_json, "compare");
  });

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  return exit_code;
}
