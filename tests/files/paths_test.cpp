// Client paths: cleaned once, opened beneath the project by the kernel.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "ava/files/paths.hpp"
#include "support/temp_dir.hpp"

using ava::files::clean_relative;
using ava::files::ProjectRoot;
namespace fs = std::filesystem;

TEST_CASE("a client's path is made canonical or refused", "[files]") {
  CHECK(clean_relative("").value() == "");
  CHECK(clean_relative(".").value() == "");
  CHECK(clean_relative("src//main.cpp").value() == "src/main.cpp");
  CHECK(clean_relative("./src/./util/").value() == "src/util");
  CHECK(clean_relative("/etc/passwd").error().code == ava::ErrorCode::invalid_argument);
  CHECK(clean_relative("src/../../x").error().code == ava::ErrorCode::invalid_argument);
  CHECK(clean_relative("..").error().code == ava::ErrorCode::invalid_argument);
  CHECK(!clean_relative(std::string("a\0b", 3)));
  CHECK(!clean_relative("bad\xff"));
  CHECK(!clean_relative(std::string(4097, 'a')));
  CHECK(clean_relative(std::string(4096, 'a')));
}

TEST_CASE("links are followed inside the project and never out of it", "[files]") {
  ava::test::TempDir outside;
  ava::test::write_file(outside.path() / "secret.txt", "secret");
  ava::test::TempDir project;
  ava::test::write_file(project.path() / "docs/a.txt", "a");
  fs::create_symlink("docs/a.txt", project.path() / "inside");
  fs::create_symlink(outside.path() / "secret.txt", project.path() / "absolute");
  fs::create_symlink("../" + outside.path().filename().string() + "/secret.txt",
                     project.path() / "relative");
  fs::create_symlink(outside.path(), project.path() / "folder");
  auto root = ProjectRoot::open(project.path()).value();

  auto inside = root.open_beneath("inside", O_RDONLY);
  REQUIRE(inside);
  char byte = 0;
  CHECK(::read(inside->get(), &byte, 1) == 1);
  CHECK(byte == 'a');
  for (const char* escaping : {"absolute", "relative", "folder/secret.txt"}) {
    auto opened = root.open_beneath(escaping, O_RDONLY);
    INFO(escaping);
    REQUIRE(!opened);
    CHECK(opened.error().code == ava::ErrorCode::permission_denied);
  }
  CHECK(root.open_beneath("missing", O_RDONLY).error().code == ava::ErrorCode::not_found);
  CHECK(ProjectRoot::open(project.path() / "gone").error().code == ava::ErrorCode::not_found);
}
