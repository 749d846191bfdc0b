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
