// Slash command templates on real folders: where they are found, front
// matter, every substitution form, and what is not a command.
#include <fstream>

#include <catch2/catch.hpp>

#include "ava/prompts/commands.hpp"
#include "ava/prompts/front_matter.hpp"
#include "support/temp_dir.hpp"

using namespace ava;
namespace fs = std::filesystem;

TEST_CASE("commands come from the user's and the project's folders, the project's winning",
          "[prompts][commands]") {
  test::TempDir dir;
  const fs::path repo = fs::canonical(dir.path()) / "repo";
  fs::create_directories(repo / ".git");
  fs::create_directories(repo / "src");
  const fs::path home = dir.path() / "home";
  test::write_file(home / "commands" / "review.md",
                   "---\ndescription: my review\n---\nReview $ARGUMENTS");
  test::write_file(home / "commands" / "standup.md", "Summarise yesterday's commits.\nThen plan.");
  test::write_file(
      repo / ".claude" / "commands" / "frontend" / "test.md",
      "---\ndescription: Run the UI tests\nargument-hint: [file]\n"
      "allowed-tools: Bash(npm test:*), Read\nmodel: claude-haiku\n---\nRun npm test $1\n");
  test::write_file(
      repo / ".ava" / "commands" / "review.md",
      "---\ndescription: \"the project's review\"\n---\nReview with our checklist: {args}");
  test::write_file(repo / ".ava" / "commands" / "notes.txt", "not a command");
  test::write_file(repo / ".ava" / "commands" / "bad name.md", "not a command name");

  const auto commands = prompts::discover_commands({.cwd = repo / "src", .home = home});
  REQUIRE(commands.size() == 3);
  CHECK(commands[0].name == "frontend:test");
  CHECK(commands[0].description == "Run the UI tests");
  CHECK(commands[0].argument_hint == "[file]");
  CHECK(commands[0].allowed_tools == std::vector<std::string>{"Bash(npm test:*)", "Read"});
  CHECK(commands[0].model == "claude-haiku");
  CHECK(commands[0].scope == "project");
  CHECK(commands[1].name == "review");
  CHECK(commands[1].description == "the project's review");
  CHECK(commands[2].name == "standup");
  CHECK(commands[2].description == "Summarise yesterday's commits.");  // the first line
  CHECK(commands[2].scope == "user");

  auto review = prompts::expand(commands[1], "src/a.cpp");
  REQUIRE(review);
  CHECK(*review == "Review with our checklist: src/a.cpp");
  auto test = prompts::expand(commands[0], "\"tests/a b.ts\" --watch");
  REQUIRE(test);
  CHECK(*test == "Run npm test tests/a b.ts");
  fs::remove(commands[2].file);
  CHECK_FALSE(prompts::expand(commands[2], ""));
}

TEST_CASE("arguments are put in every form users write", "[prompts][commands]") {
  using prompts::substitute;
  CHECK(substitute("Fix issue $ARGUMENTS now", "#12 fast") == "Fix issue #12 fast now");
  CHECK(substitute("Fix {args}", "#12") == "Fix #12");
  CHECK(substitute("$2 before $1, $3 missing", "a 'b c'") == "b c before a,  missing");
  CHECK(substitute("costs $10 and $1x", "A") == "costs $10 and Ax");  // $10 is not $1
  CHECK(substitute("No placeholder.", "extra words") ==
        "No placeholder.\n\nARGUMENTS: extra words");
  CHECK(substitute("No placeholder.", "") == "No placeholder.");
}

TEST_CASE("only /name forms are commands", "[prompts][commands]") {
  const auto parsed = prompts::parse_slash("  /review   src/a.cpp  b ");
  REQUIRE(parsed);
  CHECK(parsed->name == "review");
  CHECK(parsed->arguments == "src/a.cpp  b");
  CHECK(prompts::parse_slash("/frontend:test")->name == "frontend:test");
  CHECK_FALSE(prompts::parse_slash("/usr/bin is missing"));
  CHECK_FALSE(prompts::parse_slash("please /review"));
  CHECK_FALSE(prompts::parse_slash("/"));
  CHECK_FALSE(prompts::parse_slash("/a:"));
  CHECK_FALSE(prompts::parse_slash("/../../etc/passwd"));
  CHECK_FALSE(prompts::parse_slash("/" + std::string(65, 'a')));
}

TEST_CASE("allowed-tools split between rules, not inside them", "[prompts][commands]") {
  CHECK(prompts::split_rules("Bash(git add:*), Bash(git commit -m \"a, b\":*),Read ,") ==
        std::vector<std::string>{"Bash(git add:*)", "Bash(git commit -m \"a, b\":*)", "Read"});
  CHECK(prompts::split_rules("").empty());
}

TEST_CASE("front matter needs both fences", "[prompts][commands]") {
  const std::string text = "---\nname: x\n---\n\nbody\n";
  const auto front = prompts::parse_front_matter(text);
  CHECK(front.field("name") == "x");
  CHECK(front.body(text) == "body");
  const std::string open = "---\nname: x\nbody";
  CHECK(prompts::parse_front_matter(open).fields.empty());
  CHECK(prompts::parse_front_matter(open).body(open) == open);
}
