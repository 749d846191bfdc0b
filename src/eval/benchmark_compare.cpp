// Comparing candidates of one or more benchmark runs on complete compatible
// samples only: a sample with an infrastructure failure or an identity that
// differs from its manifest says nothing about the candidate, and each task
// weighs the same number of samples for every candidate compared.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "ava/eval/benchmark.hpp"

namespace ava::eval {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t max_manifest = 16 * 1024 * 1024;
constexpr std::size_t max_results = 512 * 1024 * 1024;

struct Sample {
  std::string task;
  std::string candidate;
  int run = 0;
  int trial = 0;
  json line;
  bool complete = false;
};

struct Identity {
  std::string binary_sha256, version, settings_hash;
  bool operator==(const Identity&) const = default;
};

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

}  // namespace

Result<Comparison> compare_runs(const std::vector<fs::path>& runs) {
  Comparison comparison;
  std::map<std::string, std::string> task_hashes;
  std::map<std::string, Identity> identities;
  std::vector<std::string> candidate_order;
  std::vector<Sample> samples;

  for (std::size_t run = 0; run < runs.size(); ++run) {
    const fs::path& dir = runs[run];
    comparison.runs.push_back(dir.string());
    AVA_TRY(auto text, base::read_file_limited(dir / "manifest.json", max_manifest));
    auto manifest = base::parse_json(text);
    if (!manifest || !manifest->is_object() || manifest->value("format", 0) != 1)
      return fail(ErrorCode::parse,
                  fmt::format("{}: not a benchmark manifest", (dir / "manifest.json").string()));
    for (const auto& task : manifest->value("tasks", json::array())) {
      const std::string name = task.value("name", ""), hash = task.value("hash", "");
      auto [it, added] = task_hashes.emplace(name, hash);
      if (!added && it->second != hash) {
        return fail(
            ErrorCode::conflict,
            fmt::format("task {} differs between the runs (hash {} and {}): the samples are not "
                        "comparable",
                        name, short_hash(it->second), short_hash(hash)));
      }
    }
    for (const auto& candidate : manifest->value("candidates", json::array())) {
      const std::string name = candidate.value("name", "");
      const Identity identity{candidate.value("binarySha256", ""), candidate.value("version", ""),
                              candidate.value("settingsHash", "")};
      auto [it, added] = identities.emplace(name, identity);
      if (added) candidate_order.push_back(name);
      if (!added && !(it->second == identity)) {
        return fail(
            ErrorCode::conflict,
            fmt::format("candidate {} has two identities (binary {} settings {}, and binary {} "
                        "settings {}): give them different names",
                        name, short_hash(it->second.binary_sha256),
                        short_hash(it->second.settings_hash), short_hash(identity.binary_sha256),
                        short_hash(identity.settings_hash)));
      }
    }
    AVA_TRY(auto results, base::read_file_limited(dir / "results.jsonl", max_results));
    std::istringstream lines(results);
    std::string raw;
    int number = 0;
    while (std::getline(lines, raw)) {
      ++number;
      auto line = base::parse_json(raw);
      if (!line || !line->is_object()) {
        comparison.excluded.push_back(
            fmt::format("{}: line {} of results.jsonl is not a result", dir.string(), number));
        continue;
      }
      Sample sample{.task = line->value("task", ""),
                    .candidate = line->value("candidate", ""),
                    .run = static_cast<int>(run),
                    .trial = line->value("trial", 0),
                    .line = std::move(*line)};
      if (!task_hashes.contains(sample.task) || !identities.contains(sample.candidate)) {
        comparison.excluded.push_back(
            fmt::format("{}: line {} names a task or candidate the manifest "
                        "does not",
                        dir.string(), number));
        continue;
      }
      samples.push_back(std::move(sample));
    }
  }

  std::map<std::string, CandidateSummary> summaries;
  for (const auto& name : candidate_order) {
    const Identity& identity = identities.at(name);
    summaries[name] = {.name = name,
                       .version = identity.version,
                       .binary_sha256 = identity.binary_sha256,
                       .settings_hash = identity.settings_hash};
  }
  for (auto& sample : samples) {
    CandidateSummary& summary = summaries.at(sample.candidate);
    ++summary.samples;
    const json& recorded = sample.line.value("identity", json::object());
    const Identity& expected = identities.at(sample.candidate);
    const bool same_identity = recorded.value("binarySha256", "") == expected.binary_sha256 &&
                               recorded.value("settingsHash", "") == expected.settings_hash &&
                               recorded.value("taskHash", "") == task_hashes.at(sample.task);
    const bool infrastructure = !sample.line.value("infrastructure", json()).is_null();
    if (infrastructure) ++summary.infrastructure_failures;
    if (!same_identity) ++summary.identity_mismatches;
    sample.complete =
        !infrastructure && same_identity && sample.line.value("grade", json()).is_object();
  }

  // Candidates with no complete sample at all cannot be compared with anyone.
  std::vector<std::string> compared;
  for (const auto& name : candidate_order) {
    const auto has = std::any_of(samples.begin(), samples.end(), [&](const Sample& s) {
      return s.candidate == name && s.complete;
    });
    if (has) {
      compared.push_back(name);
    } else {
      const auto& summary = summaries.at(name);
      comparison.excluded.push_back(fmt::format(
          "candidate {}: no complete sample ({} samples, {} infrastructure failures, {} identity "
          "mismatches)",
          name, summary.samples, summary.infrastructure_failures, summary.identity_mismatches));
    }
  }

  std::map<std::string, std::vector<double>> walls;
  std::map<std::string, double> tokens;
  std::map<std::string, bool> priced;
  for (const auto& name : compared) priced[name] = true;
  for (const auto& [task, hash] : task_hashes) {
    std::map<std::string, std::vector<const Sample*>> complete;
    for (const auto& sample : samples) {
      if (sample.task == task && sample.complete) complete[sample.candidate].push_back(&sample);
    }
    std::size_t n = SIZE_MAX;
    for (const auto& name : compared) n = std::min(n, complete[name].size());
    if (compared.empty() || n == 0) {
      for (const auto& name : compared) {
        if (complete[name].empty())
          comparison.excluded.push_back(fmt::format(
              "task {}: candidate {} has no complete sample, so the task is left out", task, name));
      }
      continue;
    }
    for (const auto& name : compared) {
      auto& list = complete[name];
      std::sort(list.begin(), list.end(), [](const Sample* a, const Sample* b) {
        return std::tie(a->run, a->trial) < std::tie(b->run, b->trial);
      });
      if (list.size() > n)
        comparison.excluded.push_back(fmt::format(
            "task {}: {} of candidate {}'s complete samples left out to pair with the others", task,
            list.size() - n, name));
      CandidateSummary& summary = summaries.at(name);
      auto& cell = comparison.by_task[task][name];
      for (std::size_t i = 0; i < n; ++i) {
        const json& line = list[i]->line;
        const bool passed = line["grade"].value("passed", false);
        ++summary.compared;
        ++cell.second;
        if (passed) {
          ++summary.passed;
          ++cell.first;
        }
        const json completion = line.value("completion", json::object());
        ++summary.completions[completion.is_object() ? completion.value("outcome", "unknown")
                                                     : "unknown"];
        const json resources = line.value("resources", json::object());
        walls[name].push_back(resources.value("wallMs", 0.0));
        tokens[name] += resources.value("inputTokens", 0.0) + resources.value("outputTokens", 0.0);
        const json cost = resources.value("costUsd", json());
        if (cost.is_number()) {
          summary.cost_usd = summary.cost_usd.value_or(0) + cost.get<double>();
        } else {
          priced[name] = false;
        }
      }
    }
  }
  for (const auto& name : candidate_order) {
    CandidateSummary summary = summaries.at(name);
    if (summary.compared > 0) {
      summary.median_wall_ms = median(walls[name]);
      summary.mean_tokens = tokens[name] / summary.compared;
      if (!priced[name]) summary.cost_usd.reset();
    }
    comparison.candidates.push_back(std::move(summary));
  }
  return comparison;
}

json to_json(const Comparison& comparison) {
  json candidates = json::array();
  for (const auto& c : comparison.candidates) {
    candidates.push_back({{"name", c.name},
                          {"version", c.version},
                          {"binarySha256", c.binary_sha256},
                          {"settingsHash", c.settings_hash},
                          {"samples", c.samples},
                          {"compared", c.compared},
                          {"passed", c.passed},
                          {"passRate", c.compared ? json(double(c.passed) / c.compared) : json()},
                          {"completions", c.completions},
                          {"infrastructureFailures", c.infrastructure_failures},
                          {"identityMismatches", c.identity_mismatches},
                          {"medianWallMs", c.median_wall_ms},
                          {"meanTokens", c.mean_tokens},
                          {"costUsd", c.cost_usd ? json(*c.cost_usd) : json()}});
  }
  json by_task = json::object();
  for (const auto& [task, cells] : comparison.by_task) {
    for (const auto& [candidate, cell] : cells) {
      by_task[task][candidate] = {{"passed", cell.first}, {"compared", cell.second}};
    }
  }
  return {{"runs", comparison.runs},
          {"candidates", candidates},
          {"byTask", by_task},
          {"excluded", comparison.excluded}};
}

std::string to_text(const Comparison& comparison) {
  std::string out = fmt::format("{:<16} {:<22} {:>8} {:>9} {:>6} {:>10} {:>9} {:>10} {:>5}\n",
                                "candidate", "version / settings", "compared", "passed", "rate",
                                "wall (med)", "tokens", "cost", "infra");
  for (const auto& c : comparison.candidates) {
    const std::string who = fmt::format("{} / {}", c.version.substr(c.version.rfind(' ') + 1),
                                        c.settings_hash.substr(0, 8));
    const std::string rate =
        c.compared ? fmt::format("{:.0f}%", 100.0 * c.passed / c.compared) : "-";
    const std::string cost = c.cost_usd ? fmt::format("${:.4f}", *c.cost_usd) : "-";
    out += fmt::format("{:<16} {:<22} {:>8} {:>9} {:>6} {:>10} {:>9.0f} {:>10} {:>5}\n", c.name,
                       who, c.compared, fmt::format("{}/{}", c.passed, c.compared), rate,
                       fmt::format("{:.1f} s", c.median_wall_ms / 1000), c.mean_tokens, cost,
                       c.infrastructure_failures);
  }
  if (!comparison.by_task.empty()) {
    out += "\nby task (passed/compared):\n";
    for (const auto& [task, cells] : comparison.by_task) {
      out += fmt::format("  {:<28}", task);
      for (const auto& c : comparison.candidates) {
        const auto cell = cells.find(c.name);
        if (cell != cells.end())
          out += fmt::format("  {} {}/{}", c.name, cell->second.first, cell->second.second);
      }
      out += "\n";
    }
  }
  for (const auto& c : comparison.candidates) {
    if (c.completions.empty()) continue;
    std::string parts;
    for (const auto& [outcome, count] : c.completions)
      parts += fmt::format(" {} {}", outcome, count);
    out += fmt::format("{} completions:{}\n", c.name, parts);
  }
  for (const auto& line : comparison.excluded) out += "left out: " + line + "\n";
  return out;
}

}  // namespace ava::eval
