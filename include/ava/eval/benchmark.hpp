#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

// `ava eval benchmark` (docs/eval.md): tasks run by candidates in fresh
// environments, graded by each task's own command. What the deliverable is
// worth (the grade), how the agent's process ended (completion), what it
// used (resources) and whether the environment itself failed
// (infrastructure) are recorded apart, and candidates are compared only on
// complete samples whose task and candidate identity match the run's
// manifest.
namespace ava::eval {

// A task folder: task.json (prompt, grader, limits) and repo/, the starting
// repository each trial gets a fresh copy of.
struct Task {
  std::string name;  // the folder's name
  std::filesystem::path dir;
  std::string prompt;
  std::vector<std::string> grader;  // argv; a string in task.json runs under /bin/sh -c
  std::chrono::seconds timeout{600};
  std::chrono::seconds grader_timeout{120};
  std::optional<int> max_steps;
  std::string hash;  // sha256 over every file of the folder, names and modes included
};

// Every sub-folder of `dir` that holds a task.json, sorted by name. A folder
// with a task.json that does not parse, names an unknown field or has no
// repo/ is an error: a benchmark never silently runs fewer tasks.
Result<std::vector<Task>> load_tasks(const std::filesystem::path& dir);
Result<Task> load_task(const std::filesystem::path& dir);

// What a candidate is: the agent binary and everything given to it.
struct Candidate {
  std::string name;
  std::filesystem::path ava;  // the ava binary (default: the one beside ava-eval)
  std::string provider;
  std::string model;
  std::string base_url;
  std::optional<int> max_steps;
  std::string permission_mode;
  std::string system_prompt;         // the file's text, read once
  std::string append_system_prompt;  // the file's text, read once
  nlohmann::json settings;           // settings.json of each trial's fresh AVA_HOME, or null
  // sha256 of everything above but the binary and the name, as canonical JSON.
  std::string settings_hash() const;
  nlohmann::json describe() const;  // the spec as recorded in the manifest
};

// NAME=key=value,key=value... (keys: ava, provider, model, base-url,
// max-steps, permission-mode, system-prompt-file, append-system-prompt-file,
// settings) or NAME=@FILE.json with the same keys. Files are read now, so a
// later change to them cannot reach a running benchmark.
Result<Candidate> parse_candidate(std::string_view argument);

// The binary a candidate runs, as the run saw it.
struct BinaryIdentity {
  std::string sha256;
  std::string version;  // `ava --version`
  // The file's device, inode, size, mtime and ctime when it was hashed: a
  // write to the file changes its ctime, so a trial re-hashes only then.
  std::string file_stamp;
};
// The stamp above for `path`, empty if it cannot be read.
std::string file_stamp(const std::filesystem::path& path);
Result<BinaryIdentity> identify_binary(const std::filesystem::path& ava);

// The sha256 of a file, hex.
Result<std::string> file_sha256(const std::filesystem::path& path);

struct BenchmarkOptions {
  std::filesystem::path tasks_dir;
  std::vector<Candidate> candidates;
  int trials = 1;
  std::filesystem::path out;  // created; must not exist or be empty
  // Called after each trial with its results.jsonl line, e.g. for progress.
  std::function<void(const nlohmann::json&)> on_trial;
};

// Freezes the tasks (a copy in OUT/tasks) and the candidates (OUT/manifest.json
// with their identities), then runs every trial: for each task, candidate and
// trial a fresh copy of repo/ and a fresh AVA_HOME under OUT/trials, `ava -p`
// with the candidate's settings, then the grader in that copy. One line per
// trial in OUT/results.jsonl. An error only when the run cannot start
// (bad tasks, an unusable binary, OUT not empty); a trial that fails is a result.
Result<void> run_benchmark(const BenchmarkOptions& options);

// One candidate's figures over the compared samples.
struct CandidateSummary {
  std::string name;
  std::string version;
  std::string binary_sha256;
  std::string settings_hash;
  int samples = 0;  // every trial recorded
  int compared = 0;
  int passed = 0;                          // of the compared
  std::map<std::string, int> completions;  // of the compared, by outcome
  int infrastructure_failures = 0;         // of all samples
  int identity_mismatches = 0;             // samples whose identity differs from the manifest
  double median_wall_ms = 0;
  double mean_tokens = 0;          // input + output, per compared sample
  std::optional<double> cost_usd;  // total over the compared samples, when every one was priced
};

struct Comparison {
  std::vector<std::string> runs;  // the result folders read
  std::vector<CandidateSummary> candidates;
  // task -> candidate -> passed/compared
  std::map<std::string, std::map<std::string, std::pair<int, int>>> by_task;
  std::vector<std::string> excluded;  // why samples or candidates were left out, one line each
};

// Reads OUT/manifest.json and OUT/results.jsonl of one or more runs and
// compares their candidates on complete compatible samples: for each task,
// every compared candidate contributes the same number of samples (the
// fewest complete ones any of them has). Runs that disagree on a task's hash
// or a candidate's identity are refused, not merged.
Result<Comparison> compare_runs(const std::vector<std::filesystem::path>& runs);

nlohmann::json to_json(const Comparison& comparison);
std::string to_text(const Comparison& comparison);

}  // namespace ava::eval
