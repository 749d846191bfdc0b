// web.json: persistence, atomic private writes, corrupt and hostile files.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "ava/registry/registry.hpp"
#include "support/temp_dir.hpp"

using namespace ava;

TEST_CASE("the registry persists projects and navigation metadata atomically", "[registry]") {
  test::TempDir dir;
  const auto file = dir.path() / "web.json";
  std::filesystem::create_directory(dir.path() / "proj");
  {
    auto registry = registry::Registry::load(file);
    REQUIRE(registry);
    auto project = (*registry)->add_project(dir.path() / "proj", "");
    REQUIRE(project);
    CHECK(project->name == "proj");
    auto same = (*registry)->add_project(dir.path() / "proj" / ".", "");
    REQUIRE(same);
    CHECK(same->id == project->id);
    CHECK_FALSE((*registry)->add_project("relative/path", ""));
    CHECK((*registry)->add_project(dir.path() / "missing", "").error().code ==
          ErrorCode::not_found);
    for (int i = 0; i < 3; ++i) {
      REQUIRE((*registry)->add_conversation({.id = "c" + std::to_string(i),
                                             .project_id = project->id,
                                             .created_ms = i,
                                             .updated_ms = i}));
    }
    CHECK((*registry)->add_conversation({.id = "c0", .project_id = project->id}).error().code ==
          ErrorCode::already_exists);
    protocol::ConversationPatch pin;
    pin.pinned = true;
    REQUIRE((*registry)->patch_conversation("c0", pin));
    (*registry)->record_activity("c1", 42, {.input = 7}, 100);
    REQUIRE((*registry)->flush());
    CHECK((*registry)->remove_project(project->id).error().code == ErrorCode::conflict);
  }
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);

  auto reloaded = registry::Registry::load(file);
  REQUIRE(reloaded);
  auto list = (*reloaded)->conversations({});
  REQUIRE(list.size() == 3);
  CHECK(list[0].id == "c0");  // pinned
  CHECK(list[1].id == "c1");  // most recent activity
  CHECK(list[1].last_seq == 42);
  CHECK(list[1].usage.input == 7);
  protocol::ConversationPatch archive;
  archive.archived = true;
  REQUIRE((*reloaded)->patch_conversation("c2", archive));
  protocol::ConversationPatch seen;
  seen.reviewed_seq = 9;
  REQUIRE((*reloaded)->patch_conversation("c2", seen));
  seen.reviewed_seq = 4;  // an older window
  CHECK((*reloaded)->patch_conversation("c2", seen)->reviewed_seq == 9);
  CHECK((*reloaded)->conversations({.archived = false}).size() == 2);
}

TEST_CASE("a removed conversation is gone from the file; a failed write keeps it", "[registry]") {
  test::TempDir dir;
  const auto file = dir.path() / "web.json";
  std::filesystem::create_directory(dir.path() / "proj");
  {
    auto registry = registry::Registry::load(file);
    REQUIRE(registry);
    auto project = (*registry)->add_project(dir.path() / "proj", "");
    REQUIRE(project);
    REQUIRE((*registry)->add_conversation({.id = "keep", .project_id = project->id}));
    REQUIRE((*registry)->add_conversation({.id = "gone", .project_id = project->id, .title = "t"}));
    auto removed = (*registry)->remove_conversation("gone");
    REQUIRE(removed);
    CHECK(removed->title == "t");
    CHECK((*registry)->remove_conversation("gone").error().code == ErrorCode::not_found);
    CHECK((*registry)->conversation_count() == 1);

    // web.json replaced by a folder with something in it: the atomic
    // rename onto it fails (for root too), and the entry stays in memory.
    std::filesystem::remove(file);
    std::filesystem::create_directories(file / "in-the-way");
    CHECK_FALSE((*registry)->remove_conversation("keep"));
    CHECK((*registry)->conversation("keep"));
    std::filesystem::remove_all(file);
    REQUIRE((*registry)->add_conversation({.id = "later", .project_id = project->id}));
  }
  auto reloaded = registry::Registry::load(file);
  REQUIRE(reloaded);
  CHECK((*reloaded)->conversation("keep"));
  CHECK((*reloaded)->conversation("later"));
  CHECK_FALSE((*reloaded)->conversation("gone"));
}

TEST_CASE("a corrupt registry is an error that names the file, not an empty start", "[registry]") {
  test::TempDir dir;
  const auto file = dir.path() / "web.json";
  {
    std::ofstream out(file);
    out << "{ not json";
  }
  auto registry = registry::Registry::load(file);
  REQUIRE_FALSE(registry);
  CHECK(registry.error().message.find("web.json") != std::string::npos);
}

TEST_CASE("a registry of many read pieces loads whole", "[registry]") {
  // Loading reads web.json in 64 KB pieces as it parses; titles with
  // escapes and multi-byte characters of every length put piece
  // boundaries inside strings and escapes.
  test::TempDir dir;
  const auto file = dir.path() / "web.json";
  std::filesystem::create_directory(dir.path() / "proj");
  constexpr int count = 1500;
  auto title_of = [](int i) {
    return std::string(static_cast<std::size_t>(i % 97), 'x') + " \"é✓\"\n" + std::to_string(i);
  };
  {
    auto registry = registry::Registry::load(file);
    REQUIRE(registry);
    auto project = (*registry)->add_project(dir.path() / "proj", "");
    REQUIRE(project);
    for (int i = 0; i < count; ++i) {
      REQUIRE((*registry)->add_conversation({.id = "c" + std::to_string(i),
                                             .project_id = project->id,
                                             .title = title_of(i),
                                             .created_ms = i,
                                             .updated_ms = i}));
    }
    REQUIRE((*registry)->flush());
  }
  REQUIRE(std::filesystem::file_size(file) > 3 * 64 * 1024);
  auto reloaded = registry::Registry::load(file);
  REQUIRE(reloaded);
  auto list = (*reloaded)->conversations({});
  REQUIRE(list.size() == static_cast<std::size_t>(count));
  for (const auto& conversation : list) {
    const int i = std::stoi(conversation.id.substr(1));
    CHECK(conversation.title == title_of(i));
    CHECK(conversation.updated_ms == i);
  }
}

TEST_CASE("a registry entry without an id is refused", "[registry]") {
  test::TempDir dir;
  const auto file = dir.path() / "web.json";
  {
    std::ofstream out(file);
    out << R"({"projects": [], "conversations": [{"id": "a"}, {"title": "no id"}]})";
  }
  auto registry = registry::Registry::load(file);
  REQUIRE_FALSE(registry);
  CHECK(registry.error().message.find("needs an id") != std::string::npos);
}
