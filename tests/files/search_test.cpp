// Quick open: Git's file list (or a walk), ranked by how well a path holds
// the query.
#include <catch2/catch.hpp>

#include "ava/files/search.hpp"
#include "files/files_fixture.hpp"
#include "support/run_awaitable.hpp"

using ava::files::rank;
using ava::files::score_path;

TEST_CASE("the ranking prefers the file's name, word starts and runs", "[files]") {
  const std::vector<std::string> paths = {"src/server/api_files.cpp", "docs/api.md",
                                          "src/files/preview.cpp", "web/src/ui/FilesPanel.tsx",
                                          "include/ava/files/paths.hpp"};
  auto found = rank(paths, "paths", 10);
  REQUIRE(!found.empty());
  CHECK(found.front().path == "include/ava/files/paths.hpp");
  CHECK(rank(paths, "FP", 10).front().path == "web/src/ui/FilesPanel.tsx");
  CHECK(rank(paths, "zzz", 10).empty());
  CHECK(rank(paths, "api", 1).size() == 1);

  auto scored = score_path("docs/api.md", "API");
  REQUIRE(scored);
  CHECK(scored->match.positions == std::vector<std::int64_t>{5, 6, 7});
  CHECK(!score_path("docs/api.md", "mdx"));
}

TEST_CASE("quick open searches Git's files, untracked ones too, never ignored ones", "[files]") {
  ava::test::GitProject project;
  project.git("add src");
  auto found = ava::test::run_awaitable(ava::files::search(project.root(), "log", 50));
  REQUIRE(found);
  std::vector<std::string> paths;
  for (const auto& match : found->matches) paths.push_back(match.path);
  CHECK(paths == std::vector<std::string>{"keep.log"});
  auto main = ava::test::run_awaitable(ava::files::search(project.root(), "main", 50));
  REQUIRE(main);
  REQUIRE(main->matches.size() == 1);
  CHECK(main->matches[0].path == "src/main.cpp");
  CHECK(main->searched == 5);  // .gitignore, keep.log, README.md, main.cpp, strings.hpp
  CHECK(!ava::test::run_awaitable(ava::files::search(project.root(), std::string(300, 'a'), 5)));
}

TEST_CASE("quick open walks a folder that is not in Git", "[files]") {
  ava::test::TempDir dir;
  ava::test::write_file(dir.path() / "a/b/deep.txt", "x");
  ava::test::write_file(dir.path() / ".git/config", "x");
  auto root = ava::files::ProjectRoot::open(dir.path()).value();
  auto found = ava::test::run_awaitable(ava::files::search(root, "deep", 50));
  REQUIRE(found);
  REQUIRE(found->matches.size() == 1);
  CHECK(found->matches[0].path == "a/b/deep.txt");
  CHECK(found->searched == 1);
}
