// Running `ava eval benchmark`: freeze, then one fresh environment per trial.
// Each trial's line says separately what the deliverable earned (grade), how
// the agent's process ended (completion), what it used (resources) and
// whether the environment failed (infrastructure; then there is no grade).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ava/base/clock.hpp"
#include "ava/base/home.hpp"
#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "ava/base/version.hpp"
#include "ava/eval/benchmark.hpp"
#include "ava/session/event.hpp"
#include "ava/session/log_reader.hpp"
#include "eval/process.hpp"

namespace ava::eval {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t agent_output_limit = 16 * 1024 * 1024;
constexpr std::size_t diagnostics_limit = 64 * 1024;

// Error codes in a session log that mean the provider or the network failed,
// not the candidate: the sample says nothing about the candidate's work.
const std::set<std::string> infrastructure_codes{
    "overloaded", "rate_limited", "server", "authentication", "network", "unavailable", "timeout"};

struct Frozen {
  const Task* task;  // the copy under OUT/tasks
  const Candidate* candidate;
  const BinaryIdentity* binary;
};

json infrastructure(std::string_view stage, std::string message) {
  return {{"stage", stage}, {"message", std::move(message)}};
}

Result<void> append_line(const fs::path& file, const json& line) {
  const std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return fail(ErrorCode::io, fmt::format("cannot open {}", file.string()));
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!written || !synced)
    return fail(ErrorCode::io, fmt::format("cannot write {}", file.string()));
  return {};
}

Result<void> copy_tree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  if (!ec) fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) {
    return fail(ErrorCode::io,
                fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message()));
  }
  return {};
}

// The last `{"type": "result"}` line `ava -p --output-format json` printed.
std::optional<json> result_line(const std::string& out) {
  std::optional<json> found;
  std::size_t start = 0;
  while (start < out.size()) {
    const auto end = std::min(out.find('\n', start), out.size());
    auto line = base::parse_json(std::string_view(out).substr(start, end - start));
    if (line && line->is_object() && line->value("type", "") == "result") found = std::move(*line);
    start = end + 1;
  }
  return found;
}

// The last error the session log holds for the run's turn, if any.
std::optional<session::ErrorOccurred> last_logged_error(const std::string& log) {
  if (log.empty()) return std::nullopt;
  auto scan = session::read_log(log);
  if (!scan) return std::nullopt;
  std::optional<session::ErrorOccurred> last;
  for (const auto& event : scan->events) {
    if (const auto* error = std::get_if<session::ErrorOccurred>(&event.body)) last = *error;
  }
  return last;
}

std::string tail(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "…" + text.substr(text.size() - bytes);
}

std::vector<std::string> agent_argv(const Task& task, const Candidate& candidate,
                                    const fs::path& repo) {
  std::vector<std::string> argv{
      candidate.ava.string(), "-p", task.prompt, "--output-format", "json", "--cwd", repo.string()};
  auto add = [&](const char* flag, const std::string& value) {
    if (value.empty()) return;
    argv.emplace_back(flag);
    argv.push_back(value);
  };
  add("--provider", candidate.provider);
  add("--model", candidate.model);
  const auto steps = candidate.max_steps ? candidate.max_steps : task.max_steps;
  if (steps) add("--max-steps", std::to_string(*steps));
  add("--permission-mode", candidate.permission_mode);
  add("--system-prompt", candidate.system_prompt);
  add("--append-system-prompt", candidate.append_system_prompt);
  return argv;
}

// The agent's run in the trial's copy: its completion and resources, or an
// infrastructure failure.
void run_agent(const Frozen& frozen, const fs::path& trial, json& line) {
  const Task& task = *frozen.task;
  const Candidate& candidate = *frozen.candidate;
  proc::RunOptions options{
      .spawn = {.argv = agent_argv(task, candidate, trial / "repo"),
                .cwd = trial / "repo",
                .env = {{"AVA_HOME", (trial / "home").string()}},
                .env_remove = {"AVA_PROVIDER", "AVA_MODEL", "AVA_BASE_URL", "AVA_PROFILE"}},
      .timeout = task.timeout,
      .capture_limit = agent_output_limit};
  if (!candidate.base_url.empty()) options.spawn.env["AVA_BASE_URL"] = candidate.base_url;
  const auto started = base::MonoClock::now();
  auto ran = run_sync(std::move(options));
  const auto wall_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(base::MonoClock::now() - started)
          .count();
  line["resources"]["wallMs"] = wall_ms;
  if (!ran) {
    line["infrastructure"] = infrastructure("agent", "cannot start ava: " + ran.error().message);
    return;
  }
  (void)base::write_private_file(trial / "agent.jsonl", ran->out.text);
  (void)base::write_private_file(trial / "agent.stderr", tail(ran->err.text, diagnostics_limit));
  const auto result = result_line(ran->out.text);
  json completion{{"exitCode", ran->status.signal == 0 ? json(ran->status.code) : json()},
                  {"timedOut", ran->timed_out}};
  if (ran->timed_out) {
    completion["outcome"] = "timeout";
  } else if (!result) {
    if (ran->status.signal != 0) {
      completion["outcome"] = "crashed";
      completion["error"] = ran->status.describe();
    } else {
      line["infrastructure"] =
          infrastructure("agent", fmt::format("ava {} without a result: {}", ran->status.describe(),
                                              tail(ran->err.text, 2000)));
    }
  }
  if (result) {
    completion["outcome"] = result->value("outcome", "error");
    completion["steps"] = result->value("num_turns", 0);
    if (const auto error = base::json_field<std::string>(*result, "error"))
      completion["error"] = *error;
    const json usage = result->value("usage", json::object());
    // -p's headless schema (docs/cli.md) in, the benchmark's own out.
    line["resources"]["inputTokens"] = usage.value("input_tokens", 0);
    line["resources"]["outputTokens"] = usage.value("output_tokens", 0);
    line["resources"]["cacheReadTokens"] = usage.value("cache_read_input_tokens", 0);
    line["resources"]["cacheWriteTokens"] = usage.value("cache_creation_input_tokens", 0);
    line["resources"]["costUsd"] = result->value("total_cost_usd", json());
    const std::string log = result->value("log", "");
    line["sessionLog"] = log;
    if (completion["outcome"] == "error") {
      const auto logged = last_logged_error(log);
      if (logged && infrastructure_codes.contains(logged->code)) {
        line["infrastructure"] =
            infrastructure("provider", fmt::format("{}: {}", logged->code, logged->message));
      }
    }
  }
  line["completion"] = std::move(completion);
}

// The grader in the trial's copy. Whatever it says about the deliverable is
// the grade; only a grader that could not run at all is infrastructure.
void run_grader(const Frozen& frozen, const fs::path& trial, json& line) {
  const Task& task = *frozen.task;
  auto ran = run_sync(
      {.spawn = {.argv = task.grader,
                 .cwd = trial / "repo",
                 .env = {{"AVA_TASK_DIR", task.dir.string()}, {"AVA_TRIAL_DIR", trial.string()}},
                 .env_remove = {"AVA_HOME"},
                 .stderr_mode = proc::StderrMode::merge},
       .timeout = task.grader_timeout,
       .capture_limit = diagnostics_limit});
  if (!ran) {
    line["infrastructure"] =
        infrastructure("grader", "cannot start the grader: " + ran.error().message);
    return;
  }
  (void)base::write_private_file(trial / "grader.out", ran->out.text);
  const int code = ran->status.code;
  if (ran->status.signal == 0 && (code == 126 || code == 127)) {
    line["infrastructure"] =
        infrastructure("grader", fmt::format("the grader could not run ({}): {}",
                                             ran->status.describe(), tail(ran->out.text, 2000)));
    return;
  }
  line["grade"] = {{"passed", ran->status.success() && !ran->timed_out},
                   {"exitCode", ran->status.signal == 0 ? json(code) : json()},
                   {"timedOut", ran->timed_out},
                   {"output", tail(ran->out.text, 2000)}};
}

json run_trial(const Frozen& frozen, const fs::path& trial, int number) {
  const Task& task = *frozen.task;
  const Candidate& candidate = *frozen.candidate;
  json line{{"task", task.name},
            {"candidate", candidate.name},
            {"trial", number},
            {"startedAt", base::format_utc(base::unix_ms_now())},
            {"trialDir", trial.string()},
            {"identity",
             {{"taskHash", task.hash},
              {"binarySha256", frozen.binary->sha256},
              {"version", frozen.binary->version},
              {"settingsHash", candidate.settings_hash()}}},
            {"grade", nullptr},
            {"completion", nullptr},
            {"resources", json::object()},
            {"infrastructure", nullptr}};
  // The binary is checked before every trial: one rebuilt mid-run is not the
  // candidate the manifest names. Its stat stamp is compared first; only a
  // changed stamp costs a new hash.
  if (file_stamp(candidate.ava) != frozen.binary->file_stamp) {
    auto now = file_sha256(candidate.ava);
    if (!now || *now != frozen.binary->sha256) {
      line["identity"]["binarySha256"] = now ? json(*now) : json();
      line["infrastructure"] = infrastructure(
          "identity", fmt::format("{} changed since the run started", candidate.ava.string()));
      return line;
    }
  }
  std::error_code ec;
  fs::create_directories(trial, ec);
  Result<void> ready = ec ? fail(ErrorCode::io, ec.message()) : Result<void>{};
  if (ready) ready = copy_tree(task.dir / "repo", trial / "repo");
  if (ready) ready = base::ensure_private_dir(trial / "home");
  if (ready && !candidate.settings.is_null())
    ready = base::write_private_file(trial / "home" / "settings.json", candidate.settings.dump(2));
  if (!ready) {
    line["infrastructure"] = infrastructure("setup", ready.error().message);
    return line;
  }
  run_agent(frozen, trial, line);
  if (line["infrastructure"].is_null()) run_grader(frozen, trial, line);
  return line;
}

json task_manifest(const Task& task) {
  return {{"name", task.name},
          {"hash", task.hash},
          {"prompt", task.prompt},
          {"grader", task.grader},
          {"timeoutSeconds", task.timeout.count()},
          {"graderTimeoutSeconds", task.grader_timeout.count()},
          {"maxSteps", task.max_steps ? json(*task.max_steps) : json()}};
}

Result<void> prepare_out(const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_empty(out, ec)) {
    return fail(ErrorCode::already_exists,
                fmt::format("{} is not empty; give a new folder with --out", out.string()));
  }
  return base::ensure_private_dir(out);
}

}  // namespace

Result<void> run_benchmark(const BenchmarkOptions& options) {
  if (options.candidates.empty()) return fail(ErrorCode::invalid_argument, "no candidate");
  if (options.trials < 1 || options.trials > 1000)
    return fail(ErrorCode::invalid_argument, "--trials must be 1 to 1000");
  std::set<std::string> names;
  for (const auto& candidate : options.candidates) {
    if (!names.insert(candidate.name).second)
      return fail(ErrorCode::invalid_argument,
                  fmt::format("two candidates named {}", candidate.name));
  }
  AVA_TRY(auto originals, load_tasks(options.tasks_dir));
  std::map<fs::path, BinaryIdentity> binaries;
  for (const auto& candidate : options.candidates) {
    if (binaries.contains(candidate.ava)) continue;
    AVA_TRY(auto identity, identify_binary(candidate.ava));
    binaries.emplace(candidate.ava, std::move(identity));
  }
  AVA_TRY_VOID(prepare_out(options.out));

  // Frozen: trials copy from OUT/tasks, whose hashes must equal the originals'.
  std::vector<Task> tasks;
  json manifest{{"format", 1},
                {"tool", "ava-eval " + std::string(base::version())},
                {"createdAt", base::format_utc(base::unix_ms_now())},
                {"tasksDir", fs::absolute(options.tasks_dir).string()},
                {"trials", options.trials},
                {"tasks", json::array()},
                {"candidates", json::array()}};
  for (const auto& original : originals) {
    const fs::path copy = options.out / "tasks" / original.name;
    AVA_TRY_VOID(copy_tree(original.dir, copy));
    AVA_TRY(auto frozen, load_task(copy));
    if (frozen.hash != original.hash) {
      return fail(ErrorCode::conflict,
                  fmt::format("task {} changed while it was being copied", original.name));
    }
    manifest["tasks"].push_back(task_manifest(frozen));
    tasks.push_back(std::move(frozen));
  }
  for (const auto& candidate : options.candidates) {
    const auto& binary = binaries.at(candidate.ava);
    manifest["candidates"].push_back({{"name", candidate.name},
                                      {"ava", candidate.ava.string()},
                                      {"binarySha256", binary.sha256},
                                      {"version", binary.version},
                                      {"settingsHash", candidate.settings_hash()},
                                      {"spec", candidate.describe()}});
  }
  AVA_TRY_VOID(base::write_private_file(options.out / "manifest.json", manifest.dump(2) + "\n"));

  for (const auto& task : tasks) {
    for (const auto& candidate : options.candidates) {
      for (int trial = 1; trial <= options.trials; ++trial) {
        const Frozen frozen{&task, &candidate, &binaries.at(candidate.ava)};
        const fs::path dir =
            options.out / "trials" / task.name / candidate.name / std::to_string(trial);
        json line = run_trial(frozen, fs::absolute(dir), trial);
        AVA_TRY_VOID(append_line(options.out / "results.jsonl", line));
        if (options.on_trial) options.on_trial(line);
      }
    }
  }
  return {};
}

}  // namespace ava::eval
