#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <map>

#include "ava/base/home.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using ava::base::Home;

namespace {

ava::base::EnvLookup fake_env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

unsigned mode_of(const fs::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return info.st_mode & 0777;
}

}  // namespace

TEST_CASE("AVA_HOME from the environment wins over HOME", "[home]") {
  ava::test::TempDir tmp;
  auto home = Home::resolve(fake_env(
      {{"AVA_HOME", (tmp.path() / "custom").string()}, {"HOME", (tmp.path() / "user").string()}}));
  REQUIRE(home);
  CHECK(home->root() == tmp.path() / "custom");
  CHECK(fs::is_directory(tmp.path() / "custom"));
  CHECK_FALSE(fs::exists(tmp.path() / "user"));
  CHECK(mode_of(home->root()) == 0700);
}

TEST_CASE("the default home is ~/.ava, created 0700 with its parents", "[home]") {
  ava::test::TempDir tmp;
  auto home = Home::resolve(fake_env({{"HOME", (tmp.path() / "a" / "b").string()}}));
  REQUIRE(home);
  CHECK(home->root() == tmp.path() / "a" / "b" / ".ava");
  CHECK(mode_of(home->root()) == 0700);
  CHECK(mode_of(tmp.path() / "a") == 0700);
}

TEST_CASE("an empty AVA_HOME falls back to HOME", "[home]") {
  ava::test::TempDir tmp;
  auto home = Home::resolve(fake_env({{"AVA_HOME", ""}, {"HOME", tmp.path().string()}}));
  REQUIRE(home);
  CHECK(home->root() == tmp.path() / ".ava");
}

TEST_CASE("without AVA_HOME and HOME resolution fails with advice", "[home]") {
  auto home = Home::resolve(fake_env({}));
  REQUIRE_FALSE(home);
  CHECK(home.error().code == ava::ErrorCode::not_found);
  CHECK(home.error().message.find("AVA_HOME") != std::string::npos);
}

TEST_CASE("an existing world-readable home is tightened to 0700", "[home]") {
  ava::test::TempDir tmp;
  const auto root = tmp.path() / "loose";
  fs::create_directory(root);
  ::chmod(root.c_str(), 0755);
  auto home = Home::at(root);
  REQUIRE(home);
  CHECK(mode_of(root) == 0700);
}

TEST_CASE("a file where the home should be is an error, not a crash", "[home]") {
  ava::test::TempDir tmp;
  const auto root = tmp.path() / "file";
  std::ofstream(root) << "x";
  auto home = Home::at(root);
  REQUIRE_FALSE(home);
  CHECK(home.error().code == ava::ErrorCode::conflict);
  CHECK(home.error().message.find("AVA_HOME") == 0);
}

TEST_CASE("relative homes become absolute and sub-folders are private", "[home]") {
  ava::test::TempDir tmp;
  const auto previous = fs::current_path();
  fs::current_path(tmp.path());
  auto home = Home::at("rel/");
  fs::current_path(previous);
  REQUIRE(home);
  CHECK(home->root() == tmp.path() / "rel");
  auto sessions = home->ensure_dir("sessions");
  REQUIRE(sessions);
  CHECK(*sessions == home->sessions());
  CHECK(mode_of(*sessions) == 0700);
}
