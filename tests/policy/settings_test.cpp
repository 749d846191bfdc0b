#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "ava/policy/settings.hpp"
#include "support/temp_dir.hpp"

using namespace ava::policy;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace

TEST_CASE("permissions add up across the settings files and flags", "[policy]") {
  ava::test::TempDir dir;
  const auto home = dir.path() / "home";
  const auto project = dir.path() / "p";
  write(home / "settings.json",
        R"j({"provider": "anthropic", "permissions": {"allow": ["bash(git status*)"],
            "deny": ["read(./.env)"], "defaultMode": "acceptEdits"
}
})j");
  write(project / ".ava" / "settings.json", R"j({"permissions": {"ask": ["bash(git push*)"]
}
})j");
  write(project / ".ava" / "settings.local.json",
        R"j({"permissions": {"allow": ["edit(src/**)"], "defaultMode": "plan"
}
})j");
  auto loaded = load_permissions(home, project);
  REQUIRE(loaded);
  CHECK(loaded->rules.mode == Mode::plan);  // the last file that says wins
  CHECK(loaded->mode_source == (project / ".ava" / "settings.local.json").string());
  REQUIRE(loaded->rules.allow.size() == 2);
  CHECK(loaded->rules.allow[0].text == "bash(git status*)");
  CHECK(loaded->rules.allow[1].text == "edit(src/**)");
  CHECK(loaded->rules.ask.size() == 1);
  CHECK(loaded->rules.deny.size() == 1);
  REQUIRE(loaded->listed.size() == 4);
  CHECK(loaded->listed[0].source == (home / "settings.json").string());

  auto flagged = load_permissions(
      home, project, Flags{.mode = Mode::auto_, .allowed = {"mcp__gh__*"}, .disallowed = {"bash"}});
  REQUIRE(flagged);
  CHECK(flagged->rules.mode == Mode::auto_);
  CHECK(flagged->mode_source == "--permission-mode");
  CHECK(flagged->rules.deny.back().text == "bash");
  CHECK(flagged->listed.back().source == "--disallowed-tools");
}

TEST_CASE("no files: the default mode and no rules", "[policy]") {
  ava::test::TempDir dir;
  auto loaded = load_permissions(dir.path() / "home", dir.path() / "p");
  REQUIRE(loaded);
  CHECK(loaded->rules.mode == Mode::ask);
  CHECK(loaded->mode_source == "default");
  CHECK(loaded->listed.empty());
}

TEST_CASE("an empty or blank settings file is empty settings", "[policy]") {
  ava::test::TempDir dir;
  const auto home = dir.path() / "home";
  for (const char* text : {"", "  \n\t\r\n"}) {
    write(home / "settings.json", text);
    write(dir.path() / "p" / ".ava" / "settings.json", text);
    auto loaded = load_permissions(home, dir.path() / "p");
    REQUIRE(loaded);
    CHECK(loaded->rules.mode == Mode::ask);
    CHECK(loaded->listed.empty());
  }
}

TEST_CASE("a malformed block or rule is an error naming the file", "[policy]") {
  ava::test::TempDir dir;
  const auto home = dir.path() / "home";
  const auto settings = (home / "settings.json").string();
  const auto error_for = [&](const std::string& text) {
    write(home / "settings.json", text);
    auto loaded = load_permissions(home, dir.path() / "p");
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error().message.find(settings) != std::string::npos);
    return loaded.error().message;
  };
  CHECK(error_for(R"j({"permissions": {"allow": ["bash("]}})j").find("bash(") != std::string::npos);
  CHECK(error_for(R"j({"permissions": {"deny": "bash"}})j").find("must be a list") !=
        std::string::npos);
  CHECK(error_for(R"j({"permissions": {"allow": [3]}})j").find("not a string") !=
        std::string::npos);
  CHECK(error_for(R"j({"permissions": {"defaultMode": "yolo"}})j").find("yolo") !=
        std::string::npos);
  CHECK(error_for(R"j({"permissions": [1]})j").find("must be an object") != std::string::npos);
  CHECK_FALSE(error_for("{not json").empty());
  CHECK(!load_permissions(home, dir.path() / "p", Flags{.allowed = {"a b"}}));
}

TEST_CASE("the sandbox setting comes as a name or an object, the last file winning", "[policy]") {
  ava::test::TempDir dir;
  const auto home = dir.path() / "home";
  const auto project = dir.path() / "p";
  write(home / "settings.json", R"({"sandbox": "read-only"})");
  auto loaded = load_permissions(home, project);
  REQUIRE(loaded);
  CHECK(loaded->sandbox.mode == "read-only");
  CHECK(loaded->sandbox.source == (home / "settings.json").string());

  write(
      project / ".ava" / "settings.local.json",
      R"({"sandbox": {"mode": "workspace-write", "network": true, "writableRoots": ["/srv/cache"]}})");
  loaded = load_permissions(home, project);
  REQUIRE(loaded);
  CHECK(loaded->sandbox.mode == "workspace-write");
  CHECK(loaded->sandbox.network == true);
  CHECK(loaded->sandbox.writable_roots == std::vector<std::string>{"/srv/cache"});

  loaded = load_permissions(home, project, Flags{.sandbox = "off"});
  REQUIRE(loaded);
  CHECK(loaded->sandbox.mode == "off");
  CHECK(loaded->sandbox.source == "--sandbox");

  write(project / ".ava" / "settings.json", R"({"sandbox": "everything"})");
  const auto bad = load_permissions(home, project);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("sandbox") != std::string::npos);
}

TEST_CASE("a project rule is added to the local settings, keeping what is there", "[policy]") {
  ava::test::TempDir dir;
  const auto project = dir.path() / "p";
  write(project_rules_file(project), R"({"theme": "dark", "permissions": {"allow": ["read"]}})");
  REQUIRE(add_project_rule(project, Verdict::allow, "bash(npm test:*)"));
  REQUIRE(add_project_rule(project, Verdict::allow, "bash(npm test:*)"));  // not twice
  REQUIRE(add_project_rule(project, Verdict::deny, "bash(rm:*)"));
  auto loaded = load_permissions(dir.path() / "home", project);
  REQUIRE(loaded);
  REQUIRE(loaded->rules.allow.size() == 2);
  CHECK(loaded->rules.allow[1].text == "bash(npm test:*)");
  CHECK(loaded->rules.deny.at(0).text == "bash(rm:*)");
  std::ifstream in(project_rules_file(project));
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  CHECK(text.find("\"theme\"") != std::string::npos);

  // A rule that does not parse is refused and nothing is written.
  CHECK_FALSE(add_project_rule(project, Verdict::allow, "bash(unclosed"));
  // A file that is not JSON is not overwritten.
  write(project_rules_file(project), "{ not json");
  CHECK_FALSE(add_project_rule(project, Verdict::allow, "read"));
  std::ifstream again(project_rules_file(project));
  CHECK(std::string{std::istreambuf_iterator<char>(again), {}} == "{ not json");
}

TEST_CASE("a project's committed settings only narrow, unless the user trusts the project",
          "[policy]") {
  ava::test::TempDir dir;
  const auto home = dir.path() / "home";
  const auto project = dir.path() / "p";
  write(project / ".ava" / "settings.json",
        R"j({"permissions": {"allow": ["bash"], "deny": ["read(./.env)"], "defaultMode": "auto"},
            "sandbox": {"mode": "off", "network": true}})j");
  auto loaded = load_permissions(home, project);
  REQUIRE(loaded);
  CHECK_FALSE(loaded->project_trusted);
  CHECK(loaded->rules.allow.empty());
  CHECK(loaded->rules.deny.size() == 1);  // narrowing applies
  CHECK(loaded->rules.mode == Mode::ask);
  CHECK(loaded->mode_source == "default");
  CHECK_FALSE(loaded->sandbox.mode);
  CHECK_FALSE(loaded->sandbox.network.value_or(false));
  std::vector<std::string> ignored;
  for (const auto& item : loaded->ignored) ignored.push_back(item.setting);
  CHECK(ignored == std::vector<std::string>{"allow bash", "defaultMode auto", "sandbox off",
                                            "sandbox.network true"});
  // plan and ask from the project are kept: they narrow.
  write(project / ".ava" / "settings.json", R"({"permissions": {"defaultMode": "plan"}})");
  loaded = load_permissions(home, project);
  REQUIRE(loaded);
  CHECK(loaded->rules.mode == Mode::plan);

  // The user's own settings trust it (by its real path): everything applies.
  write(project / ".ava" / "settings.json",
        R"({"permissions": {"allow": ["bash"], "defaultMode": "auto"}})");
  write(home / "settings.json",
        "{\"trustedProjects\": [\"" + (dir.path() / "." / "p").string() + "\"]}");
  loaded = load_permissions(home, project);
  REQUIRE(loaded);
  CHECK(loaded->project_trusted);
  CHECK(loaded->rules.allow.size() == 1);
  CHECK(loaded->rules.mode == Mode::auto_);
  CHECK(loaded->ignored.empty());

  write(home / "settings.json", R"({"trustedProjects": ["relative/path"]})");
  CHECK_FALSE(load_permissions(home, project));
}
