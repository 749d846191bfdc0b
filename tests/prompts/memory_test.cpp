// Memory notes on real folders: save, list, read, update, forget to the
// attic, the index's budget, and hostile names and links.
#include <set>

#include <catch2/catch.hpp>

#include "ava/prompts/builtins.hpp"
#include "ava/prompts/memory.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
using prompts::MemoryScope;
namespace fs = std::filesystem;

namespace {

struct Places {
  test::TempDir dir;
  fs::path repo = fs::canonical(dir.path()) / "repo";
  fs::path home = dir.path() / "home";
  prompts::MemoryPlaces places{.home = home, .cwd = repo / "src"};
  Places() {
    fs::create_directories(repo / ".git");
    fs::create_directories(repo / "src");
  }
};

}  // namespace

TEST_CASE("notes are saved, listed with their summaries, read, updated and forgotten",
          "[prompts][memory]") {
  Places p;
  REQUIRE(prompts::write_memory(p.places, {.name = "build",
                                           .scope = MemoryScope::project,
                                           .summary = "Build with: cmake --preset dev",
                                           .body = "Use the dev preset.\nNever release."}));
  REQUIRE(prompts::write_memory(
      p.places,
      {.name = "tone", .scope = MemoryScope::user, .summary = "Short answers", .body = "Short."}));
  CHECK(fs::exists(p.repo / ".ava" / "memory" / "build.md"));
  CHECK(fs::exists(p.home / "memory" / "tone.md"));

  const auto notes = prompts::list_memory(p.places);
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].name == "tone");  // the user's first
  CHECK(notes[0].scope == MemoryScope::user);
  CHECK(notes[1].summary == "Build with: cmake --preset dev");  // quoted in the file, read back

  auto read = prompts::read_memory(p.places, MemoryScope::project, "build");
  REQUIRE(read);
  CHECK(read->body == "Use the dev preset.\nNever release.");

  // Creating twice is refused; replacing is explicit.
  const auto twice = prompts::write_memory(
      p.places, {.name = "build", .scope = MemoryScope::project, .summary = "x", .body = ""});
  REQUIRE_FALSE(twice);
  CHECK(twice.error().code == ErrorCode::already_exists);
  REQUIRE(prompts::write_memory(p.places, {.name = "build",
                                           .scope = MemoryScope::project,
                                           .summary = "Build: make",
                                           .body = "make",
                                           .replace = true}));
  CHECK(prompts::read_memory(p.places, MemoryScope::project, "build")->note.summary ==
        "Build: make");

  auto moved = prompts::forget_memory(p.places, MemoryScope::project, "build");
  REQUIRE(moved);
  CHECK(moved->parent_path().filename() == ".attic");
  CHECK(fs::exists(*moved));
  CHECK(prompts::list_memory(p.places).size() == 1);
  CHECK_FALSE(prompts::forget_memory(p.places, MemoryScope::project, "build"));
}

TEST_CASE("a note's name, summary and body are checked", "[prompts][memory]") {
  Places p;
  for (const char* name : {"", "../escape", "a/b", ".hidden", "x y", "name\n"}) {
    INFO(name);
    CHECK_FALSE(prompts::write_memory(
        p.places, {.name = name, .scope = MemoryScope::project, .summary = "s", .body = "b"}));
  }
  CHECK_FALSE(prompts::write_memory(
      p.places, {.name = "n", .scope = MemoryScope::project, .summary = "two\nlines"}));
  CHECK_FALSE(
      prompts::write_memory(p.places, {.name = "n", .scope = MemoryScope::project, .summary = ""}));
  CHECK_FALSE(prompts::write_memory(p.places, {.name = "n",
                                               .scope = MemoryScope::project,
                                               .summary = "s",
                                               .body = std::string(70 * 1024, 'x')}));
  CHECK_FALSE(prompts::write_memory(
      p.places, {.name = "n", .scope = MemoryScope::project, .summary = "bad \xff"}));
  CHECK_FALSE(fs::exists(p.repo / ".ava" / "memory" / "n.md"));
  CHECK_FALSE(fs::exists(p.dir.path() / "escape.md"));
  CHECK_FALSE(prompts::parse_memory_scope("global"));
}

TEST_CASE("a repository's memory folder or note that is a link is not followed",
          "[prompts][memory]") {
  Places p;
  const fs::path outside = p.dir.path() / "outside";
  fs::create_directories(outside);
  test::write_file(outside / "secret.md", "---\ndescription: a secret\n---\nkey");
  fs::create_directories(p.repo / ".ava");
  fs::create_directory_symlink(outside, p.repo / ".ava" / "memory");
  CHECK(prompts::list_memory(p.places).empty());
  CHECK_FALSE(prompts::read_memory(p.places, MemoryScope::project, "secret"));
  const auto written = prompts::write_memory(
      p.places, {.name = "x", .scope = MemoryScope::project, .summary = "s", .body = "b"});
  REQUIRE_FALSE(written);
  CHECK(written.error().code == ErrorCode::permission_denied);
  CHECK_FALSE(fs::exists(outside / "x.md"));

  fs::remove(p.repo / ".ava" / "memory");
  fs::create_directories(p.repo / ".ava" / "memory");
  fs::create_symlink(outside / "secret.md", p.repo / ".ava" / "memory" / "linked.md");
  CHECK(prompts::list_memory(p.places).empty());
  CHECK_FALSE(prompts::read_memory(p.places, MemoryScope::project, "linked"));
}

TEST_CASE("the index lists summaries within its budget and counts the rest", "[prompts][memory]") {
  Places p;
  for (int i = 0; i < 30; ++i) {
    REQUIRE(prompts::write_memory(p.places, {.name = "note" + std::to_string(100 + i),
                                             .scope = MemoryScope::project,
                                             .summary = "a summary of note " + std::to_string(i),
                                             .body = "body"}));
  }
  const auto notes = prompts::list_memory(p.places);
  REQUIRE(notes.size() == 30);
  CHECK(prompts::memory_index({}).empty());
  const std::string all = prompts::memory_index(notes);
  CHECK(all.find("- note100 (project): a summary of note 0\n") == 0);
  CHECK(all.find("more") == std::string::npos);
  const std::string cut = prompts::memory_index(notes, 400);
  CHECK(cut.size() < 500);
  CHECK(cut.find("more (list them with the memory tool)") != std::string::npos);
}

TEST_CASE("the built-in commands are listed once each", "[prompts][builtins]") {
  std::set<std::string_view> names;
  for (const auto& builtin : prompts::builtin_commands()) {
    CHECK(names.insert(builtin.name).second);
    CHECK_FALSE(builtin.description.empty());
  }
  for (const char* name :
       {"help", "clear", "compact", "model", "plan", "goal", "memory", "context", "cost"}) {
    CHECK(prompts::find_builtin(name) != nullptr);
  }
  CHECK(prompts::find_builtin("review") == nullptr);
}
