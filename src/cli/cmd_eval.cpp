// `ava eval ...` and `ava replay DIR` (docs/eval.md): evaluation lives in its
// own binary, ava-eval, beside ava; these hand it the arguments unchanged so
// neither ava nor ava-backend links the eval package.

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"

namespace ava::cli {
namespace {

namespace fs = std::filesystem;

// ava-eval next to this binary (an install or a build tree), else on PATH.
Result<int> run_eval(const std::string& first, const std::vector<std::string>& rest) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside = self.parent_path() / "ava-eval";
  const bool local = !ec && fs::is_regular_file(beside, ec);
  const std::string program = local ? beside.string() : "ava-eval";
  std::vector<std::string> words{program};
  if (!first.empty()) words.push_back(first);
  words.insert(words.end(), rest.begin(), rest.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  if (local) {
    ::execv(argv[0], argv.data());
  } else {
    ::execvp(argv[0], argv.data());
  }
  return fail(ErrorCode::not_found, fmt::format("cannot run {} ({}): it is installed beside ava",
                                                program, std::strerror(errno)));
}

void add_forwarding(CLI::App& cli, CliContext& context, const char* name, const char* about,
                    std::string first) {
  auto* command = cli.add_subcommand(name, about);
  command->prefix_command();
  command->callback([command, &context, first = std::move(first), name] {
    finish(context, CommandName{.name = name}, run_eval(first, command->remaining()));
  });
}

}  // namespace

void add_eval_commands(CLI::App& cli, CliContext& context) {
  add_forwarding(
      cli, context, "eval",
      "Evaluate agent runs: diagnose SESSION..., replay DIR, benchmark TASKS_DIR, compare RUN "
      "(ava eval --help)",
      "");
}

void add_replay_commands(CLI::App& cli, CliContext& context) {
  add_forwarding(cli, context, "replay",
                 "Replay a recording (ava -p --record DIR) offline and check it matches", "replay");
}

}  // namespace ava::cli
