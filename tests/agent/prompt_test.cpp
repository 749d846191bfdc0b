#include <fstream>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"
#include "ava/agent/prompt.hpp"
#include "ava/tool/registry.hpp"

using namespace ava;
namespace fs = std::filesystem;

TEST_CASE("skills come from SKILL.md front matter, the project overrides the user",
          "[agent][prompt]") {
  test::TempDir dir;
  const auto user = dir.path() / "home" / "skills";
  const auto project = dir.path() / "repo" / ".ava" / "skills";
  test::write_file(user / "deploy" / "SKILL.md",
                   "---\nname: deploy\ndescription: \"Ship a release\"\n---\nRun ./release.sh\n");
  test::write_file(user / "nameless" / "SKILL.md",
                   "---\ndescription: folder name is used\n---\nbody\n");
  test::write_file(user / "undescribed" / "SKILL.md",
                   "---\nname: undescribed\n---\nno description\n");
  test::write_file(user / "plain" / "SKILL.md", "no front matter at all\n");
  test::write_file(project / "deploy" / "SKILL.md",
                   "---\nname: deploy\ndescription: Ship this project\n---\nUse make deploy\n");

  const auto skills = agent::discover_skills({user, project});
  REQUIRE(skills.size() == 2);
  CHECK(skills[0].name == "deploy");
  CHECK(skills[0].description == "Ship this project");
  CHECK(skills[1].name == "nameless");
  auto body = agent::load_skill_body(skills[0]);
  REQUIRE(body);
  CHECK(*body == "Use make deploy");

  fs::create_directories(dir.path() / "repo" / ".git");
  const auto repo = fs::weakly_canonical(dir.path() / "repo");
  CHECK(agent::default_skill_roots(dir.path() / "home", dir.path() / "repo", false) ==
        std::vector<fs::path>{user, repo / ".ava" / "skills"});
  // Claude Code's folders too, each before Ava's of the same level.
  const auto roots = agent::default_skill_roots(dir.path() / "home", dir.path() / "repo");
  REQUIRE(roots.size() == 4);
  CHECK(roots[0].filename() == "skills");
  CHECK(roots[0].parent_path().filename() == ".claude");
  CHECK(roots[1] == user);
  CHECK(roots[2] == repo / ".claude" / "skills");
  CHECK(roots[3] == repo / ".ava" / "skills");

  // The skill tool returns a body on demand.
  auto tool = agent::make_skill_tool(skills);
  test::Runtime runtime;
  tool::ToolContext context{.cwd = dir.path(), .executor = runtime.executor()};
  auto result = runtime.run(tool::invoke(*tool, {{"name", "deploy"}}, context));
  REQUIRE(result);
  CHECK(result->joined_text().find("Use make deploy") != std::string::npos);
  auto unknown = runtime.run(tool::invoke(*tool, {{"name", "nope"}}, context));
  REQUIRE(unknown);
  CHECK(unknown->is_error);  // not in the schema's enum
}

TEST_CASE("the system prompt indexes skills and carries project instructions", "[agent][prompt]") {
  const std::string prompt = agent::build_system_prompt(
      {.cwd = "/work/p",
       .project = prompts::ProjectContext{.text = "Use tabs."},
       .skills = {{.name = "deploy", .description = "Ship it", .file = "/s/deploy/SKILL.md"}}});
  CHECK(prompt.find("Working directory: /work/p") != std::string::npos);
  CHECK(prompt.find("Use tabs.") != std::string::npos);
  CHECK(prompt.find("- deploy: Ship it") != std::string::npos);
  // No demand to narrate before tool calls.
  CHECK(prompt.find("no need to announce") != std::string::npos);
}

TEST_CASE("the first request stays small: system prompt and default tool schemas",
          "[agent][prompt]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst",
                                    test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(agent);
  const auto report = (*agent)->context_report();
  const auto total = report.system_prompt_chars + report.tool_schema_chars;
  INFO("system " << report.system_prompt_chars << " + tools " << report.tool_schema_chars);
  CHECK(total <= 6000);
  runtime.close(**agent);
}

TEST_CASE("with memory and subagents on and empty stores, the first request stays small",
          "[agent][prompt]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto options = test::basic_options(test::echo_factory(), dir.path());
  options.home = dir.path() / "home";
  options.memory = true;
  options.subagents = true;
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  const auto report = (*agent)->context_report();
  const auto total = report.system_prompt_chars + report.tool_schema_chars;
  // The figure docs/performance.md quotes.
  WARN("first request, memory and subagents on: system "
       << report.system_prompt_chars << " + tools " << report.tool_schema_chars << " = " << total);
  CHECK(total <= 6000);
  const auto request = (*agent)->next_request();
  std::vector<std::string> names;
  for (const auto& tool : request.tools) names.push_back(tool.name);
  CHECK(names == std::vector<std::string>{"read", "write", "edit", "bash", "memory", "task"});
  runtime.close(**agent);
}

TEST_CASE("explicit tools and system prompt replace the defaults", "[agent][prompt]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto options = test::basic_options(test::echo_factory(), dir.path());
  tool::ToolRegistry tools;
  tools.add(tool::make_read_tool());
  options.tools = std::move(tools);
  options.system_prompt = "You are a test.";
  options.append_system_prompt = "Be brief.";
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);
  const auto request = (*agent)->next_request();
  CHECK(request.system == "You are a test.\n\nBe brief.");
  REQUIRE(request.tools.size() == 1);
  CHECK(request.tools[0].name == "read");
  runtime.close(**agent);
}
