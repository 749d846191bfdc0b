// The permission check per tool call (issue target: under 0.1 ms), with a
// rule set the size people keep: bash, path and MCP rules in all three lists.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "ava/policy/policy.hpp"

namespace {

using namespace ava::policy;

RuleSet typical_rules() {
  RuleSet rules{.mode = Mode::ask, .allow = {}, .ask = {}, .deny = {}};
  for (const char* text : {"bash(git status*)", "bash(git diff*)", "bash(npm run test:*)",
                           "bash(make*)", "edit(src/**)", "edit(tests/**)", "mcp__github__*"}) {
    rules.allow.push_back(*parse_rule(text));
  }
  for (const char* text : {"bash(git push*)", "edit(*.lock)"})
    rules.ask.push_back(*parse_rule(text));
  for (const char* text : {"bash(rm -rf *)", "read(./.env)", "mcp__github__delete_*"}) {
    rules.deny.push_back(*parse_rule(text));
  }
  return rules;
}

Places places() {
  const auto root = std::filesystem::temp_directory_path();
  return {.project = root, .cwd = root, .home = root};
}

void BM_CheckBash(benchmark::State& state) {
  const auto rules = typical_rules();
  const auto where = places();
  const ToolCall call{.tool = "bash",
                      .category = Category::execute,
                      .path = {},
                      .command = "git status --short && git diff --stat | tail -n 20"};
  for (auto _ : state) benchmark::DoNotOptimize(evaluate(rules, call, where));
}
BENCHMARK(BM_CheckBash);

void BM_CheckEdit(benchmark::State& state) {
  const auto rules = typical_rules();
  const auto where = places();
  const ToolCall call{
      .tool = "edit", .category = Category::edit, .path = "src/agent/dispatch.cpp", .command = {}};
  for (auto _ : state) benchmark::DoNotOptimize(evaluate(rules, call, where));
}
BENCHMARK(BM_CheckEdit);

void BM_CheckMcp(benchmark::State& state) {
  const auto rules = typical_rules();
  const auto where = places();
  const ToolCall call{.tool = "mcp__github__create_issue", .category = Category::mcp};
  for (auto _ : state) benchmark::DoNotOptimize(evaluate(rules, call, where));
}
BENCHMARK(BM_CheckMcp);

}  // namespace
