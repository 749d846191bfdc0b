// Skill availability: a project's switch over the user-wide one over the
// default (on), read from a real capabilities.sqlite3.
#include <fstream>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/capabilities/skill_availability.hpp"
#include "support/shape_check.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace fs = std::filesystem;

namespace {

void write_skill(const fs::path& root, const std::string& name) {
  fs::create_directories(root / name);
  std::ofstream(root / name / "SKILL.md")
      << "---\nname: " << name << "\ndescription: about " << name << "\n---\nbody\n";
}

// A home and a project (a folder with .git) in a temporary folder.
struct Layout {
  test::TempDir dir;
  base::Home home = *base::Home::at(dir.path() / "home");
  fs::path repo = fs::weakly_canonical(dir.path()) / "repo";
  Layout() { fs::create_directories(repo / ".git"); }
};

std::string state_of(const std::vector<capabilities::SkillListing>& skills,
                     const std::string& name) {
  for (const auto& skill : skills) {
    if (skill.skill.name == name) {
      return fmt::format("{} {} {}", skill.source, skill.state.enabled ? "on" : "off",
                         skill.state.setting);
    }
  }
  return "missing";
}

}  // namespace

TEST_CASE("a project's switch overrides the user-wide one, none means enabled",
          "[capabilities][skills]") {
  CHECK(capabilities::resolve_skill(std::nullopt, std::nullopt).enabled);
  CHECK(capabilities::resolve_skill(std::nullopt, std::nullopt).setting == "default");
  CHECK_FALSE(capabilities::resolve_skill(false, std::nullopt).enabled);
  CHECK(capabilities::resolve_skill(false, std::nullopt).setting == "user");
  CHECK(capabilities::resolve_skill(false, true).enabled);
  CHECK(capabilities::resolve_skill(false, true).setting == "project");
  CHECK_FALSE(capabilities::resolve_skill(true, false).enabled);
  CHECK_FALSE(capabilities::resolve_skill(std::nullopt, false).enabled);

  const std::vector<capabilities::CapabilitiesStore::SkillSwitch> rows{
      {.skill = "a", .project = "", .enabled = false},
      {.skill = "a", .project = "/p", .enabled = true},
      {.skill = "b", .project = "", .enabled = false},
      {.skill = "c", .project = "/other", .enabled = false},
      {.skill = "d", .project = "/p", .enabled = false}};
  const auto states = capabilities::skill_states(rows, "/p");
  CHECK(states.at("a").enabled);
  CHECK(states.at("a").setting == "project");
  CHECK_FALSE(states.at("b").enabled);
  CHECK(states.at("c").enabled);  // another project's switch does not apply
  CHECK(states.at("c").setting == "default");
  CHECK_FALSE(states.at("d").enabled);
  // The user-wide view sees only the user-wide switches.
  CHECK(capabilities::skill_states(rows, "").at("a").setting == "user");
  CHECK(capabilities::skill_states(rows, "").at("d").enabled);
}

TEST_CASE("agents get the skills switched off for their project", "[capabilities][skills]") {
  const Layout layout;
  const base::Home& home = layout.home;
  const fs::path& repo = layout.repo;
  fs::create_directories(repo / "src");

  // No capabilities.sqlite3: nothing is withheld and nothing is created.
  CHECK(capabilities::disabled_skills_for(home, repo).empty());
  CHECK_FALSE(fs::exists(capabilities::CapabilitiesStore::file_of(home)));

  auto store = capabilities::CapabilitiesStore::open(home);
  REQUIRE(store);
  // A subfolder keys to its project, the folder whose .ava/skills agents read.
  CHECK(capabilities::skill_project_key(repo / "src") == repo.string());
  REQUIRE(store->set_skill_enabled("deploy", "", false));
  REQUIRE(store->set_skill_enabled("lint", "", false));
  REQUIRE(store->set_skill_enabled("lint", repo.string(), true));
  REQUIRE(store->set_skill_enabled("pdf", repo.string(), false));
  const auto elsewhere = repo.parent_path() / "elsewhere";
  REQUIRE(store->set_skill_enabled("docs", elsewhere.string(), false));

  CHECK(capabilities::disabled_skills_for(home, repo / "src") ==
        std::set<std::string>{"deploy", "pdf"});
  CHECK(capabilities::disabled_skills_for(home, elsewhere) ==
        std::set<std::string>{"deploy", "docs", "lint"});
}

TEST_CASE("listings say where a skill comes from and which switch decided",
          "[capabilities][skills]") {
  const Layout layout;
  const base::Home& home = layout.home;
  const fs::path& repo = layout.repo;
  write_skill(home.root() / "skills", "deploy");
  write_skill(home.root() / "skills", "notes");
  write_skill(repo / ".ava" / "skills", "deploy");  // the project's wins the name
  write_skill(repo / ".ava" / "skills", "lint");
  auto store = capabilities::CapabilitiesStore::open(home);
  REQUIRE(store);
  REQUIRE(store->set_skill_enabled("notes", "", false));
  REQUIRE(store->set_skill_enabled("lint", repo.string(), false));

  auto here = capabilities::list_skills(home, *store, repo);
  REQUIRE(here);
  REQUIRE(here->size() == 3);
  CHECK(state_of(*here, "deploy") == "project on default");
  CHECK(state_of(*here, "lint") == "project off project");
  CHECK(state_of(*here, "notes") == "user off user");

  auto user_wide = capabilities::list_skills(home, *store, std::nullopt);
  REQUIRE(user_wide);
  REQUIRE(user_wide->size() == 2);
  CHECK(state_of(*user_wide, "deploy") == "user on default");
  CHECK(state_of(*user_wide, "notes") == "user off user");

  for (const auto& skill : *here) {
    CHECK(test::object_mismatch(protocol::to_json(capabilities::skill_info(skill)), "SkillInfo",
                                skill.skill.name) == "");
  }
}
