#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "support/temp_dir.hpp"
#include "tool/tool_test_util.hpp"

using ava::test::call_tool;
using ava::test::read_bytes;
using ava::test::write_bytes;
using nlohmann::json;

namespace {

json batch(std::string path, std::vector<std::pair<std::string, std::string>> edits) {
  json list = json::array();
  for (auto& [old_text, new_text] : edits)
    list.push_back({{"oldText", old_text}, {"newText", new_text}});
  return {{"path", std::move(path)}, {"edits", std::move(list)}};
}

}  // namespace

TEST_CASE("the edit tool applies a batch and reports a diff", "[tool][edit]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "a.txt", "one\ntwo\nthree\n");
  const auto result = call_tool("edit", batch("a.txt", {{"one", "1"}, {"three", "3"}}), dir.path());
  CHECK_FALSE(result.is_error);
  CHECK(result.joined_text() == "Edited a.txt: 2 replacements.");
  CHECK(read_bytes(dir.path() / "a.txt") == "1\ntwo\n3\n");
  CHECK(result.details["diff"] ==
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+1\n two\n-three\n+3\n");
}

TEST_CASE("a rejected batch leaves the file untouched", "[tool][edit]") {
  ava::test::TempDir dir;
  const auto file = dir.path() / "a.txt";
  write_bytes(file, "one\ntwo\n");
  struct stat before {};
  REQUIRE(::stat(file.c_str(), &before) == 0);
  const auto result =
      call_tool("edit", batch("a.txt", {{"one", "1"}, {"missing", "x"}}), dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text().find("edits[1]: oldText was not found") != std::string::npos);
  CHECK(read_bytes(file) == "one\ntwo\n");
  struct stat after {};
  REQUIRE(::stat(file.c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);  // not even rewritten
}

TEST_CASE("an edit keeps CRLF, BOM and the missing final newline", "[tool][edit]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "w.txt", "\xEF\xBB\xBFone\r\ntwo\r\nthree");
  const auto result = call_tool("edit", batch("w.txt", {{"two", "2"}}), dir.path());
  CHECK_FALSE(result.is_error);
  CHECK(read_bytes(dir.path() / "w.txt") == "\xEF\xBB\xBFone\r\n2\r\nthree");
}

TEST_CASE("one line of a 10 MB file is edited", "[tool][edit]") {
  ava::test::TempDir dir;
  std::string big;
  for (int i = 0; big.size() < std::size_t{10} * 1024 * 1024; ++i)
    big += "line " + std::to_string(i) + " of the file\n";
  write_bytes(dir.path() / "big.txt", big);
  const auto result =
      call_tool("edit", batch("big.txt", {{"line 123456 of", "LINE 123456 of"}}), dir.path());
  CHECK_FALSE(result.is_error);
  std::string expected = big;
  expected.replace(expected.find("line 123456 of"), 4, "LINE");
  CHECK(read_bytes(dir.path() / "big.txt") == expected);
  CHECK(result.details["diff"].get<std::string>().find("+LINE 123456 of the file") !=
        std::string::npos);
}

TEST_CASE("a file over the edit limit is refused", "[tool][edit]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "big.txt", std::string(2048, 'x'));
  ava::tool::ToolContext context{.cwd = dir.path()};
  context.limits.edit_file_bytes = 1024;
  const auto result = call_tool("edit", batch("big.txt", {{"x", "y"}}), context);
  CHECK(result.is_error);
  CHECK(result.joined_text().find("over the limit") != std::string::npos);
}

TEST_CASE("the legacy old_string form is accepted, with replace_all", "[tool][edit]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "l.txt", "a-a-a\nb\n");
  auto single =
      call_tool("edit", {{"path", "l.txt"}, {"old_string", "b"}, {"new_string", "B"}}, dir.path());
  CHECK_FALSE(single.is_error);
  auto ambiguous =
      call_tool("edit", {{"path", "l.txt"}, {"old_string", "a"}, {"new_string", "x"}}, dir.path());
  CHECK(ambiguous.is_error);
  auto all = call_tool(
      "edit",
      {{"file_path", "l.txt"}, {"old_string", "a"}, {"new_string", "x"}, {"replace_all", true}},
      dir.path());
  CHECK_FALSE(all.is_error);
  CHECK(all.details["replacements"] == 3);
  CHECK(read_bytes(dir.path() / "l.txt") == "x-x-x\nB\n");
}

TEST_CASE("malformed edit arguments become a readable tool error", "[tool][edit]") {
  ava::test::TempDir dir;
  const auto result = call_tool(
      "edit", {{"path", "x.txt"}, {"edits", {{{"oldText", 1}, {"newText", "y"}}}}}, dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text() ==
        "Invalid arguments for edit: edits[0].oldText: expected string, got integer");
}

TEST_CASE("editing a missing file says so", "[tool][edit]") {
  ava::test::TempDir dir;
  const auto result = call_tool("edit", batch("nope.txt", {{"a", "b"}}), dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text().find("Cannot edit nope.txt") != std::string::npos);
}

TEST_CASE("an edit that changes nothing is reported, not written", "[tool][edit]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "s.txt", "same\n");
  const auto result = call_tool("edit", batch("s.txt", {{"same", "same"}}), dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text().find("No change") != std::string::npos);
}
