#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "support/temp_dir.hpp"
#include "tool/tool_test_util.hpp"

using ava::test::call_tool;
using ava::test::read_bytes;

TEST_CASE("write creates parent folders and reports the bytes", "[tool][write]") {
  ava::test::TempDir dir;
  const auto result =
      call_tool("write", {{"path", "deep/er/new.txt"}, {"content", "hello\n"}}, dir.path());
  CHECK_FALSE(result.is_error);
  CHECK(result.joined_text() == "Created deep/er/new.txt (6 bytes).");
  CHECK(result.details["bytes"] == 6);
  CHECK(read_bytes(dir.path() / "deep/er/new.txt") == "hello\n");
}

TEST_CASE("overwriting keeps the existing file mode", "[tool][write]") {
  ava::test::TempDir dir;
  const auto file = dir.path() / "run.sh";
  ava::test::write_bytes(file, "old");
  REQUIRE(::chmod(file.c_str(), 0751) == 0);
  const auto result = call_tool("write", {{"path", file.string()}, {"content", "new"}}, "/");
  CHECK_FALSE(result.is_error);
  CHECK(result.joined_text().starts_with("Overwrote"));
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  CHECK((info.st_mode & 07777) == 0751);
  CHECK(read_bytes(file) == "new");
}

TEST_CASE("write leaves no temporary file behind", "[tool][write]") {
  ava::test::TempDir dir;
  call_tool("write", {{"path", "a.txt"}, {"content", "x"}}, dir.path());
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++entries;
  }
  CHECK(entries == 1);
}

TEST_CASE("writing through a symlink replaces the target", "[tool][write]") {
  ava::test::TempDir dir;
  ava::test::write_bytes(dir.path() / "real.txt", "old");
  std::filesystem::create_symlink("real.txt", dir.path() / "link.txt");
  call_tool("write", {{"path", "link.txt"}, {"content", "new"}}, dir.path());
  CHECK(std::filesystem::is_symlink(dir.path() / "link.txt"));
  CHECK(read_bytes(dir.path() / "real.txt") == "new");
}

TEST_CASE("writing over a directory is a tool error", "[tool][write]") {
  ava::test::TempDir dir;
  std::filesystem::create_directory(dir.path() / "sub");
  const auto result = call_tool("write", {{"path", "sub"}, {"content", "x"}}, dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text().find("not a regular file") != std::string::npos);
}
