// Skills an application switched off (AgentOptions::disabled_skills).
#include <algorithm>
#include <fstream>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"
#include "ava/agent/prompt.hpp"

using namespace ava;
namespace fs = std::filesystem;

namespace {

void write_skill(const fs::path& root, const std::string& name, const std::string& description) {
  fs::create_directories(root / name);
  std::ofstream(root / name / "SKILL.md")
      << "---\nname: " << name << "\ndescription: " << description << "\n---\nSteps of " << name
      << "\n";
}

const llm::ToolSpec* find_spec(const llm::Request& request, std::string_view name) {
  const auto it = std::ranges::find(request.tools, name, &llm::ToolSpec::name);
  return it == request.tools.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("a disabled skill is neither indexed nor loadable", "[agent][skills]") {
  test::TempDir dir;
  test::Runtime runtime;
  const auto root = dir.path() / "skills";
  write_skill(root, "deploy", "Ship a release");
  write_skill(root, "lint", "Check the style");
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "skill", "arguments": {"name": "deploy"}}},
               {"toolCall": {"id": "c2", "name": "skill", "arguments": {"name": "lint"}}}]},
    {"steps": [{"text": "Done."}]}
  ]})");
  auto options = test::basic_options(test::scripted_factory(script, journal), dir.path());
  options.skill_roots = {root};
  options.disabled_skills = {"deploy"};
  auto agent =
      agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst", std::move(options));
  REQUIRE(agent);

  const auto request = (*agent)->next_request();
  CHECK(request.system.find("- lint: Check the style") != std::string::npos);
  CHECK(request.system.find("deploy") == std::string::npos);
  const auto* skill = find_spec(request, "skill");
  REQUIRE(skill != nullptr);
  CHECK(skill->parameters["properties"]["name"]["enum"] == nlohmann::json::array({"lint"}));

  REQUIRE((*agent)->followup("go"));
  runtime.wait_idle(**agent);
  runtime.close(**agent);
  const auto results =
      test::events_of<session::ToolResult>(test::read_events((*agent)->log_path()));
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == session::ToolStatus::error);  // deploy: not a skill it knows
  CHECK(results[1].status == session::ToolStatus::ok);
  REQUIRE_FALSE(results[1].content.empty());
  CHECK(std::get<llm::TextBlock>(results[1].content[0]).text.find("Steps of lint") !=
        std::string::npos);
}

TEST_CASE("with every skill disabled there is no skill tool and no index", "[agent][skills]") {
  test::TempDir dir;
  test::Runtime runtime;
  const auto root = dir.path() / "skills";
  write_skill(root, "deploy", "Ship a release");
  auto options = test::basic_options(test::echo_factory(), dir.path());
  options.skill_roots = {root};

  SECTION("offered when enabled") {
    auto agent =
        agent::Agent::create(runtime.executor(), dir.path() / "on.jsonl.zst", std::move(options));
    REQUIRE(agent);
    CHECK(find_spec((*agent)->next_request(), "skill") != nullptr);
    CHECK((*agent)->next_request().system.find("- deploy: Ship a release") != std::string::npos);
    runtime.close(**agent);
  }
  SECTION("withheld when disabled") {
    options.disabled_skills = {"deploy", "not-on-disk"};
    auto agent =
        agent::Agent::create(runtime.executor(), dir.path() / "off.jsonl.zst", std::move(options));
    REQUIRE(agent);
    CHECK(find_spec((*agent)->next_request(), "skill") == nullptr);
    CHECK((*agent)->next_request().system.find("Skills (") == std::string::npos);
    runtime.close(**agent);
  }
}

TEST_CASE("a reopened agent applies the disabled skills it is given now", "[agent][skills]") {
  test::TempDir dir;
  test::Runtime runtime;
  const auto root = dir.path() / "skills";
  write_skill(root, "deploy", "Ship a release");
  const auto log = dir.path() / "s.jsonl.zst";
  auto options_with = [&](std::set<std::string> disabled) {
    auto options = test::basic_options(test::echo_factory(), dir.path());
    options.skill_roots = {root};
    options.disabled_skills = std::move(disabled);
    return options;
  };
  {
    auto agent = agent::Agent::create(runtime.executor(), log, options_with({}));
    REQUIRE(agent);
    CHECK(find_spec((*agent)->next_request(), "skill") != nullptr);
    runtime.close(**agent);
  }
  auto reopened = agent::Agent::create_at(runtime.executor(), log, options_with({"deploy"}));
  REQUIRE(reopened);
  CHECK(find_spec((*reopened)->next_request(), "skill") == nullptr);
  runtime.close(**reopened);
}
