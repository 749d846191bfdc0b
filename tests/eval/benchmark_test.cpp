// The benchmark's tasks, candidates and comparison, without running an agent
// (tests/app/eval_benchmark.sh runs the whole thing against fake providers).
#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/eval/benchmark.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void make_task(const fs::path& dir, const json& spec) {
  test::write_file(dir / "task.json", spec.dump());
  test::write_file(dir / "repo" / "main.py", "print('hi')\n");
}

json sample(const std::string& task, const std::string& candidate, int trial, bool passed,
            bool infrastructure = false, const std::string& sha = "bin") {
  json line{
      {"task", task},
      {"candidate", candidate},
      {"trial", trial},
      {"identity",
       {{"taskHash", "h-" + task}, {"binarySha256", sha}, {"settingsHash", "s-" + candidate}}},
      {"grade", infrastructure ? json() : json{{"passed", passed}}},
      {"completion", infrastructure ? json() : json{{"outcome", "completed"}}},
      {"resources",
       {{"wallMs", 1000 * trial}, {"inputTokens", 100}, {"outputTokens", 10}, {"costUsd", 0.5}}},
      {"infrastructure",
       infrastructure ? json{{"stage", "provider"}, {"message", "down"}} : json()}};
  return line;
}

void make_run(const fs::path& dir, const std::vector<std::string>& candidates,
              const std::vector<json>& lines, const std::string& torn_tail = "") {
  json manifest{{"format", 1}, {"tasks", json::array()}, {"candidates", json::array()}};
  for (const std::string task : {"t1", "t2"})
    manifest["tasks"].push_back({{"name", task}, {"hash", "h-" + task}});
  for (const auto& name : candidates) {
    manifest["candidates"].push_back({{"name", name},
                                      {"binarySha256", "bin"},
                                      {"version", "ava 1.0"},
                                      {"settingsHash", "s-" + name}});
  }
  std::string results;
  for (const auto& line : lines) results += line.dump() + "\n";
  test::write_file(dir / "manifest.json", manifest.dump());
  test::write_file(dir / "results.jsonl", results + torn_tail);
}

const eval::CandidateSummary& summary_of(const eval::Comparison& c, const std::string& name) {
  for (const auto& s : c.candidates) {
    if (s.name == name) return s;
  }
  FAIL("no candidate " << name);
  throw;
}

}  // namespace

TEST_CASE("a candidate is parsed from key=value pairs or a JSON file, and hashed by what it sets") {
  test::TempDir dir;
  test::write_file(dir.path() / "extra.md", "Be brief.");
  test::write_file(dir.path() / "settings.json", R"j({"permissions": {"allow": ["Bash(ls)"]}})j");
  auto a = eval::parse_candidate("fast=provider=anthropic,model=claude-sonnet-4-5,max-steps=12," +
                                 std::string("append-system-prompt-file=") +
                                 (dir.path() / "extra.md").string() +
                                 ",settings=" + (dir.path() / "settings.json").string());
  REQUIRE(a);
  CHECK(a->name == "fast");
  CHECK(a->provider == "anthropic");
  CHECK(a->max_steps == 12);
  CHECK(a->append_system_prompt == "Be brief.");
  CHECK(a->settings["permissions"]["allow"][0] == "Bash(ls)");
  CHECK(a->ava.filename() == "ava");

  test::write_file(dir.path() / "fast.json",
                   json{{"provider", "anthropic"},
                        {"model", "claude-sonnet-4-5"},
                        {"max-steps", 12},
                        {"append-system-prompt-file", (dir.path() / "extra.md").string()},
                        {"settings", (dir.path() / "settings.json").string()}}
                       .dump());
  auto from_file = eval::parse_candidate("fast=@" + (dir.path() / "fast.json").string());
  REQUIRE(from_file);
  CHECK(from_file->settings_hash() == a->settings_hash());

  // The same settings inline in the file: the same candidate.
  test::write_file(dir.path() / "inline.json",
                   json{{"provider", "anthropic"},
                        {"model", "claude-sonnet-4-5"},
                        {"max-steps", 12},
                        {"append-system-prompt-file", (dir.path() / "extra.md").string()},
                        {"settings", json::parse(test::read_text(dir.path() / "settings.json"))}}
                       .dump());
  auto inline_settings = eval::parse_candidate("fast=@" + (dir.path() / "inline.json").string());
  REQUIRE(inline_settings);
  CHECK(inline_settings->settings_hash() == a->settings_hash());

  auto other_model = eval::parse_candidate("fast=provider=anthropic,model=claude-opus-4-5");
  REQUIRE(other_model);
  CHECK(other_model->settings_hash() != a->settings_hash());
  CHECK(a->settings_hash().size() == 64);
}

TEST_CASE("a candidate that cannot be what it says is refused with the reason") {
  test::TempDir dir;
  test::write_file(dir.path() / "list.json", "[1, 2]");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"no-equals", "expected NAME=key=value"},
      {"=provider=x", "candidate name"},
      {"../up=provider=x", "candidate name"},
      {"x=colour=blue", "unknown key \"colour\""},
      {"x=max-steps=0", "max-steps must be 1 to 10000"},
      {"x=max-steps=3x", "max-steps must be 1 to 10000"},
      {"x=base-url=ftp://host", "base-url must start with"},
      {"x=provider", "is not key=value"},
      {"x=system-prompt-file=/nonexistent/prompt.md", "cannot read"},
      {"x=settings=" + (dir.path() / "list.json").string(), "is not a JSON object"},
      {"x=@" + (dir.path() / "list.json").string(), "not a JSON object"},
  };
  for (const auto& [argument, message] : cases) {
    INFO(argument);
    auto parsed = eval::parse_candidate(argument);
    REQUIRE_FALSE(parsed);
    CHECK_THAT(parsed.error().message, Catch::Contains(message));
  }
}

TEST_CASE("tasks are read strictly and hashed by every file, name and mode") {
  test::TempDir dir;
  make_task(dir.path() / "b-task",
            {{"prompt", "Fix it"}, {"grader", "python3 -m unittest"}, {"maxSteps", 5}});
  make_task(dir.path() / "a-task",
            {{"prompt", "Make it"}, {"grader", {"test", "-f", "x"}}, {"timeoutSeconds", 9}});
  test::write_file(dir.path() / "notes" / "README.md", "not a task");

  auto tasks = eval::load_tasks(dir.path());
  REQUIRE(tasks);
  REQUIRE(tasks->size() == 2);
  CHECK((*tasks)[0].name == "a-task");
  CHECK((*tasks)[0].grader == std::vector<std::string>{"test", "-f", "x"});
  CHECK((*tasks)[0].timeout == std::chrono::seconds(9));
  CHECK((*tasks)[1].grader == std::vector<std::string>{"/bin/sh", "-c", "python3 -m unittest"});
  CHECK((*tasks)[1].max_steps == 5);
  CHECK((*tasks)[0].hash.size() == 64);

  const auto before = (*tasks)[1].hash;
  test::write_file(dir.path() / "b-task" / "repo" / "main.py", "print('bye')\n");
  CHECK(eval::load_task(dir.path() / "b-task")->hash != before);
  test::write_file(dir.path() / "b-task" / "repo" / "main.py", "print('hi')\n");
  CHECK(eval::load_task(dir.path() / "b-task")->hash == before);
  fs::permissions(dir.path() / "b-task" / "repo" / "main.py", fs::perms::owner_exec,
                  fs::perm_options::add);
  CHECK(eval::load_task(dir.path() / "b-task")->hash != before);

  const std::vector<std::pair<json, std::string>> bad{
      {{{"prompt", "x"}, {"grader", "true"}, {"timeout", 5}}, "unknown field \"timeout\""},
      {{{"grader", "true"}}, "\"prompt\" must be"},
      {{{"prompt", "x"}, {"grader", json::array()}}, "\"grader\" must be"},
      {{{"prompt", "x"}, {"grader", "true"}, {"timeoutSeconds", 0}}, "timeoutSeconds must be"},
      {{{"prompt", "x"}, {"grader", "true"}, {"maxSteps", "many"}}, "\"maxSteps\" must be"},
  };
  for (const auto& [spec, message] : bad) {
    INFO(spec.dump());
    test::TempDir broken;
    make_task(broken.path() / "t", spec);
    auto loaded = eval::load_tasks(broken.path());
    REQUIRE_FALSE(loaded);
    CHECK_THAT(loaded.error().message, Catch::Contains(message));
  }
  test::TempDir no_repo;
  test::write_file(no_repo.path() / "t" / "task.json", R"({"prompt": "x", "grader": "true"})");
  REQUIRE_FALSE(eval::load_tasks(no_repo.path()));
  test::TempDir empty;
  CHECK_THAT(eval::load_tasks(empty.path()).error().message, Catch::Contains("holds no task"));
}

TEST_CASE("candidates are compared on the same number of complete samples per task") {
  test::TempDir dir;
  make_run(dir.path() / "run", {"a", "b", "down"},
           {sample("t1", "a", 1, true), sample("t1", "a", 2, true), sample("t1", "a", 3, false),
            sample("t1", "b", 1, false), sample("t1", "b", 2, true, /*infrastructure=*/true),
            sample("t1", "b", 3, true),
            // t2: b has no complete sample, so nobody is compared on it.
            sample("t2", "a", 1, true), sample("t2", "b", 1, true, true),
            // A sample run by another binary than the manifest names.
            sample("t2", "b", 2, true, false, "rebuilt"), sample("t1", "down", 1, false, true),
            sample("t2", "down", 1, false, true)},
           "{\"task\": \"t1\", \"cand");

  auto comparison = eval::compare_runs({dir.path() / "run"});
  REQUIRE(comparison);
  const auto& a = summary_of(*comparison, "a");
  const auto& b = summary_of(*comparison, "b");
  const auto& down = summary_of(*comparison, "down");
  // t1: b has 2 complete samples, so a's first 2 are compared (both passed).
  CHECK(a.compared == 2);
  CHECK(a.passed == 2);
  CHECK(b.compared == 2);
  CHECK(b.passed == 1);
  CHECK(b.infrastructure_failures == 2);
  CHECK(b.identity_mismatches == 1);
  CHECK(a.median_wall_ms == 1500);
  CHECK(a.cost_usd == 1.0);
  CHECK(a.mean_tokens == 110);
  CHECK(down.compared == 0);
  CHECK(down.infrastructure_failures == 2);
  CHECK(comparison->by_task.at("t1").at("b") == std::pair{1, 2});
  CHECK_FALSE(comparison->by_task.contains("t2"));

  auto excluded = [&](const std::string& text) {
    for (const auto& line : comparison->excluded) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  };
  CHECK(excluded("candidate down: no complete sample"));
  CHECK(excluded("task t2: candidate b has no complete sample"));
  CHECK(excluded("task t1: 1 of candidate a's complete samples left out"));
  CHECK(excluded("line 12 of results.jsonl is not a result"));

  const auto text = eval::to_text(*comparison);
  CHECK_THAT(text, Catch::Contains("2/2"));
  const auto out = eval::to_json(*comparison);
  CHECK(out["candidates"][1]["passRate"] == 0.5);
  CHECK(out["candidates"][2]["passRate"].is_null());
}

TEST_CASE("runs are merged only when their tasks and candidates are the same") {
  test::TempDir dir;
  make_run(dir.path() / "one", {"a", "b"},
           {sample("t1", "a", 1, true), sample("t1", "b", 1, false)});
  make_run(dir.path() / "two", {"a", "b"},
           {sample("t1", "a", 1, false), sample("t1", "b", 1, false)});
  auto merged = eval::compare_runs({dir.path() / "one", dir.path() / "two"});
  REQUIRE(merged);
  CHECK(summary_of(*merged, "a").compared == 2);
  CHECK(summary_of(*merged, "a").passed == 1);

  auto manifest = json::parse(test::read_text(dir.path() / "two" / "manifest.json"));
  manifest["candidates"][0]["settingsHash"] = "other";
  test::write_file(dir.path() / "two" / "manifest.json", manifest.dump());
  auto refused = eval::compare_runs({dir.path() / "one", dir.path() / "two"});
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("candidate a has two identities"));

  manifest["candidates"][0]["settingsHash"] = "s-a";
  manifest["tasks"][0]["hash"] = "changed";
  test::write_file(dir.path() / "two" / "manifest.json", manifest.dump());
  refused = eval::compare_runs({dir.path() / "one", dir.path() / "two"});
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("task t1 differs between the runs"));

  test::write_file(dir.path() / "bad" / "manifest.json", "[]");
  CHECK_FALSE(eval::compare_runs({dir.path() / "bad"}));
  CHECK_FALSE(eval::compare_runs({dir.path() / "missing"}));
}
