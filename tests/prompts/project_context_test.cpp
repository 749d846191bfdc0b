// Layered AGENTS.md files on real folders: the order, the CLAUDE.md
// fallback, the user's and the local file, and the budget.
#include <fstream>

#include <catch2/catch.hpp>

#include "ava/prompts/project_context.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names(const prompts::ProjectContext& context, const fs::path& base) {
  std::vector<std::string> out;
  for (const auto& file : context.files)
    out.push_back(file.scope + ":" + file.path.lexically_relative(base).string());
  return out;
}

}  // namespace

TEST_CASE("every AGENTS.md from the repository root down, then the user's, then the local one",
          "[prompts][context]") {
  test::TempDir dir;
  const fs::path base = fs::canonical(dir.path());
  const fs::path repo = base / "repo";
  const fs::path deep = repo / "src" / "module";
  fs::create_directories(deep);
  fs::create_directories(repo / ".git");
  test::write_file(base / "AGENTS.md", "above the repository: not read");
  test::write_file(repo / "AGENTS.md", "root rules");
  test::write_file(repo / "CLAUDE.md", "shadowed by AGENTS.md");
  test::write_file(repo / "src" / "CLAUDE.md",
                   "src rules (a CLAUDE.md where there is no AGENTS.md)");
  test::write_file(deep / "AGENTS.md", "module rules");
  test::write_file(base / "home" / "AGENTS.md", "my own rules");
  test::write_file(repo / "AGENTS.local.md", "local notes");

  const auto context = prompts::load_project_context({.cwd = deep, .home = base / "home"});
  CHECK(names(context, base) ==
        std::vector<std::string>{"project:repo/AGENTS.md", "project:repo/src/CLAUDE.md",
                                 "project:repo/src/module/AGENTS.md", "user:home/AGENTS.md",
                                 "local:repo/AGENTS.local.md"});
  const auto at = [&](std::string_view text) { return context.text.find(text); };
  CHECK(at("root rules") < at("src rules"));
  CHECK(at("src rules") < at("module rules"));
  CHECK(at("module rules") < at("my own rules"));
  CHECK(at("my own rules") < at("local notes"));
  CHECK(at("not read") == std::string::npos);
  CHECK(at("shadowed") == std::string::npos);
  CHECK(context.text.find("<instructions file=\"" + (repo / "AGENTS.md").string() +
                          "\" scope=\"project\">") != std::string::npos);
  CHECK_FALSE(context.truncated());
  CHECK(context.files[0].bytes == 10);
  CHECK(context.files[0].included == 10);
}

TEST_CASE("without a repository only the working folder's file is read", "[prompts][context]") {
  test::TempDir dir;
  const fs::path base = fs::canonical(dir.path());
  test::write_file(base / "AGENTS.md", "parent");
  test::write_file(base / "work" / "AGENTS.md", "here");
  const auto context = prompts::load_project_context({.cwd = base / "work"});
  REQUIRE(context.files.size() == 1);
  CHECK(context.text.find("here") != std::string::npos);
  CHECK(prompts::load_project_context({.cwd = base / "nowhere"}).text.empty());
}

TEST_CASE("over the budget the files nearest the root are cut first", "[prompts][context]") {
  test::TempDir dir;
  const fs::path repo = fs::canonical(dir.path());
  fs::create_directories(repo / ".git");
  test::write_file(repo / "AGENTS.md", std::string(300, 'r'));
  test::write_file(repo / "sub" / "AGENTS.md", std::string(80, 's'));
  const auto context = prompts::load_project_context({.cwd = repo / "sub", .budget = 100});
  REQUIRE(context.files.size() == 2);
  CHECK(context.files[0].bytes == 300);
  CHECK(context.files[0].included == 20);
  CHECK(context.files[1].included == 80);  // the most specific is whole
  CHECK(context.truncated());
  CHECK(context.text.find("[cut: the file has 300 bytes, 20 shown]") != std::string::npos);
  // A character is never split.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "é";
  test::write_file(repo / "sub" / "AGENTS.md", accents);
  const auto cut = prompts::load_project_context({.cwd = repo / "sub", .budget = 51});
  CHECK(cut.files[1].included == 50);
}
