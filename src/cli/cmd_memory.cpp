// `ava memory list|dream` (docs/workflows.md): the memory notes agents keep,
// and their consolidation over recent sessions, which runs only when asked:
// one agent turn with the memory and read tools, proposing changes (plan
// mode) or, with --apply, making them.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/prompts/dream.hpp"
#include "ava/prompts/memory.hpp"
#include "ava/prompts/project_context.hpp"
#include "ava/session/digest.hpp"
#include "ava/session/log_reader.hpp"
#include "cli/commands.hpp"
#include "cli/prompt_run.hpp"

namespace ava::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr CommandName command_name{.name = "memory"};
constexpr std::size_t digest_bytes = std::size_t{6} * 1024;  // per session
constexpr std::size_t max_candidates = 200;                  // logs looked at
constexpr std::string_view dream_marker = "Memory consolidation (ava memory dream";

fs::path folder_of(const std::string& cwd) {
  std::error_code ec;
  return fs::weakly_canonical(cwd.empty() ? fs::current_path(ec) : fs::path(cwd), ec);
}

Result<int> list(const std::string& cwd, bool as_json) {
  AVA_TRY(auto home, base::Home::resolve());
  const prompts::MemoryPlaces places{.home = home.root(), .cwd = folder_of(cwd)};
  const auto notes = prompts::list_memory(places);
  if (as_json) {
    json items = json::array();
    for (const auto& note : notes) {
      items.push_back({{"name", note.name},
                       {"scope", prompts::to_string(note.scope)},
                       {"summary", note.summary},
                       {"path", note.file.string()},
                       {"bytes", note.bytes}});
    }
    std::printf("%s\n", json{{"notes", items}}.dump(2).c_str());
    return 0;
  }
  if (notes.empty()) {
    std::printf("No memory notes (%s, %s)\n",
                prompts::memory_folder(places, prompts::MemoryScope::project).c_str(),
                prompts::memory_folder(places, prompts::MemoryScope::user).c_str());
  }
  for (const auto& note : notes) {
    std::fputs(
        fmt::format("{:<8} {:<24} {}\n", prompts::to_string(note.scope), note.name, note.summary)
            .c_str(),
        stdout);
  }
  return 0;
}

struct DreamFlags {
  std::string cwd;
  int sessions = 5;
  bool apply = false;
  std::string model;
  std::string provider;
  std::string output_format = "text";
};

// The newest sessions started in this project (not subagents', not earlier
// dreams'), as digests.
std::vector<prompts::DreamSession> recent_sessions(const base::Home& home, const fs::path& project,
                                                   std::size_t wanted) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> logs;
  for (const auto& entry : fs::directory_iterator(home.sessions(), ec)) {
    if (entry.path().filename().string().ends_with(".jsonl.zst")) {
      logs.emplace_back(entry.last_write_time(ec), entry.path());
    }
  }
  std::ranges::sort(logs, std::greater<>{});
  std::vector<prompts::DreamSession> found;
  for (std::size_t i = 0; i < logs.size() && i < max_candidates && found.size() < wanted; ++i) {
    auto scan = session::read_log(logs[i].second);
    if (!scan || scan->events.empty()) continue;
    const auto* start = std::get_if<session::SessionStarted>(&scan->events.front().body);
    if (!start || !start->parent_session_id.empty()) continue;
    if (prompts::repository_root(start->cwd) != project) continue;
    bool dream = false;
    for (const auto& event : scan->events) {
      if (const auto* input = std::get_if<session::InputAcknowledged>(&event.body)) {
        dream = input->text.starts_with(dream_marker);
        break;
      }
    }
    std::string digest = session::conversation_digest(scan->events, digest_bytes);
    if (dream || digest.empty()) continue;
    found.push_back({.id = start->session_id, .digest = std::move(digest)});
  }
  return found;
}

Result<int> dream(const DreamFlags& flags) {
  if (flags.sessions < 1 || flags.sessions > 20) {
    return usage_error(command_name, {ErrorCode::invalid_argument, "--sessions is 1 to 20"});
  }
  AVA_TRY(auto home, base::Home::resolve());
  const fs::path cwd = folder_of(flags.cwd);
  const fs::path project = prompts::repository_root(cwd);
  const auto sessions = recent_sessions(home, project, static_cast<std::size_t>(flags.sessions));
  if (sessions.empty()) {
    std::printf("No earlier sessions in %s to learn from.\n", project.c_str());
    return 0;
  }
  const prompts::MemoryPlaces places{.home = home.root(), .cwd = cwd};
  PromptFlags run{.print = true,
                  .prompt = prompts::dream_request(
                      prompts::memory_index(prompts::list_memory(places)), sessions, flags.apply),
                  .model = flags.model,
                  .provider = flags.provider,
                  .cwd = cwd.string(),
                  .max_steps = 12,
                  .system_prompt = prompts::dream_instructions(flags.apply),
                  .output_format = flags.output_format,
                  .no_mcp = true,
                  // Plan mode refuses the note changes: the run can only propose them.
                  .permission_mode = flags.apply ? "auto" : "plan",
                  .memory = true,
                  .subagents = false,
                  .only_tools = std::vector<std::string>{"read"}};
  return run_prompt(run);
}

}  // namespace

void add_memory_commands(CLI::App& cli, CliContext& context) {
  auto* memory = cli.add_subcommand("memory", "The memory notes agents keep");
  memory->require_subcommand(1);

  auto list_cwd = std::make_shared<std::string>();
  auto list_json = std::make_shared<bool>(false);
  auto* list_command =
      memory->add_subcommand("list", "List the notes, the user's and the project's");
  list_command->add_option("--cwd", *list_cwd, "A folder of the project (default: this one)");
  list_command->add_flag("--json", *list_json, "Print JSON");
  list_command->callback([&context, list_cwd, list_json] {
    finish(context, command_name, list(*list_cwd, *list_json));
  });

  auto flags = std::make_shared<DreamFlags>();
  auto* dream_command = memory->add_subcommand(
      "dream",
      "Review recent sessions and propose changes to the notes (--apply makes them); runs only "
      "when you ask");
  dream_command->add_option("--sessions", flags->sessions, "How many recent sessions (1-20)")
      ->capture_default_str();
  dream_command->add_flag("--apply", flags->apply, "Let it save, update and forget notes");
  dream_command->add_option("--cwd", flags->cwd, "A folder of the project (default: this one)");
  dream_command->add_option("--model", flags->model, "Model (default: settings)");
  dream_command->add_option("--provider", flags->provider, "Provider (default: settings)");
  dream_command->add_option("--output-format", flags->output_format, "text, json or stream-json")
      ->capture_default_str();
  dream_command->callback([&context, flags] { finish(context, command_name, dream(*flags)); });
}

}  // namespace ava::cli
