// Folder listings: Git's ignores, .git hidden, folders first, links shown
// as what they lead to inside the project.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ava/files/listing.hpp"
#include "files/files_fixture.hpp"
#include "support/run_awaitable.hpp"

namespace asio = boost::asio;
using ava::files::list_folder;

namespace {

std::vector<std::string> names(const ava::protocol::FileListing& listing) {
  std::vector<std::string> out;
  out.reserve(listing.entries.size());
  for (const auto& entry : listing.entries) out.push_back(entry.name);
  return out;
}

ava::Result<ava::protocol::FileListing> list(const ava::files::ProjectRoot& root, std::string path,
                                             std::size_t max = 5000) {
  return ava::test::run_awaitable(list_folder(root, std::move(path), max));
}

}  // namespace

TEST_CASE("a Git project's folder lists what Git does not ignore, folders first", "[files]") {
  ava::test::GitProject project;
  const auto root = project.root();
  auto top = list(root, "");
  REQUIRE(top);
  CHECK(top->ignores_applied);
  CHECK(names(*top) == std::vector<std::string>{"docs", "src", ".gitignore", "keep.log"});
  CHECK(top->entries[0].kind == "dir");
  CHECK(top->entries[2].kind == "file");
  CHECK(top->entries[2].size == 23);

  auto src = list(root, "src");
  REQUIRE(src);
  CHECK(src->path == "src");
  CHECK(names(*src) == std::vector<std::string>{"util", "main.cpp"});
  // An ignored folder asked for by name lists nothing Git would keep.
  auto build = list(root, "build");
  REQUIRE(build);
  CHECK(build->entries.empty());
}

TEST_CASE("a folder outside Git lists everything but .git", "[files]") {
  ava::test::TempDir dir;
  ava::test::write_file(dir.path() / "b.txt", "b");
  ava::test::write_file(dir.path() / "A.txt", "a");
  ava::test::write_file(dir.path() / ".git/HEAD", "x");
  ava::test::write_file(dir.path() / "build/out.o", "o");
  std::filesystem::create_symlink("/etc", dir.path() / "etc");
  std::filesystem::create_symlink("build", dir.path() / "alias");
  auto root = ava::files::ProjectRoot::open(dir.path()).value();
  auto top = list(root, "");
  REQUIRE(top);
  CHECK(!top->ignores_applied);
  CHECK(names(*top) == std::vector<std::string>{"alias", "build", "A.txt", "b.txt", "etc"});
  CHECK(top->entries[0].link);
  CHECK(top->entries[0].kind == "dir");
  CHECK(top->entries[4].link);
  CHECK(top->entries[4].kind == "link");  // leads outside: nothing of /etc is shown

  auto cut = list(root, "", 2);
  REQUIRE(cut);
  CHECK(cut->truncated);
  CHECK(cut->entries.size() == 2);
  CHECK(list(root, "b.txt").error().code == ava::ErrorCode::not_found);
  CHECK(list(root, "etc").error().code == ava::ErrorCode::permission_denied);
}
