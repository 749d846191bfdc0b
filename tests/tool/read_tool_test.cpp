#include <catch2/catch.hpp>

#include "support/temp_dir.hpp"
#include "tool/tool_test_util.hpp"

using ava::test::call_tool;
using ava::test::write_bytes;

namespace {

std::string lines(int count) {
  std::string out;
  for (int i = 1; i <= count; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

}  // namespace

TEST_CASE("read shows numbered lines", "[tool][read]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "a.txt", "foo\r\nbar\nbaz");
  const auto result = call_tool("read", {{"path", "a.txt"}}, dir.path());
  CHECK_FALSE(result.is_error);
  CHECK(result.joined_text() == "     1\tfoo\n     2\tbar\n     3\tbaz");
  CHECK(result.details["total_lines"] == 3);
}

TEST_CASE("read honours offset and limit and says how to continue", "[tool][read]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "a.txt", lines(10));
  const auto result =
      call_tool("read", {{"path", "a.txt"}, {"offset", 4}, {"limit", 2}}, dir.path());
  CHECK(result.joined_text() ==
        "     4\tline 4\n     5\tline 5\n[Showing lines 4-5 of 10. Use offset=6 to continue.]");
  const auto tail = call_tool("read", {{"path", "a.txt"}, {"offset", 9}}, dir.path());
  CHECK(tail.joined_text() == "     9\tline 9\n    10\tline 10");
}

TEST_CASE("read past the end is an error naming the length", "[tool][read]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "a.txt", lines(3));
  const auto result = call_tool("read", {{"path", "a.txt"}, {"offset", 7}}, dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text() == "offset 7 is past the end of a.txt (3 lines)");
}

TEST_CASE("read stops at the byte cap with a continuation note", "[tool][read]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "a.txt", lines(1000));
  ava::tool::ToolContext context{.cwd = dir.path()};
  context.limits.tool_output = 100;
  const auto text = call_tool("read", {{"path", "a.txt"}}, context).joined_text();
  CHECK(text.starts_with("     1\tline 1\n"));
  CHECK(text.find("[Output capped at 100 bytes: showing lines 1-7 of 1000. Use offset=8 to "
                  "continue.]") != std::string::npos);
}

TEST_CASE("read refuses binary files", "[tool][read]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "b.bin", std::string("ELF\0\1\2\3", 7));
  const auto result = call_tool("read", {{"path", "b.bin"}}, dir.path());
  CHECK(result.is_error);
  CHECK(result.joined_text() == "b.bin is a binary file (7 bytes); it cannot be shown as text.");
}

TEST_CASE("read returns images as image content", "[tool][read]") {
  ava::test::TempDir dir;
  const std::string png("\x89PNG\r\n\x1A\n\0\0\0\rIHDR", 16);
  write_bytes(dir.path() / "i.png", png);
  const auto result = call_tool("read", {{"path", "i.png"}}, dir.path());
  CHECK_FALSE(result.is_error);
  REQUIRE(result.content.size() == 2);
  const auto* image = std::get_if<ava::tool::ImageContent>(&result.content[1]);
  REQUIRE(image != nullptr);
  CHECK(image->media_type == "image/png");
  CHECK(image->data == "iVBORw0KGgoAAAANSUhEUg==");

  ava::tool::ToolContext small{.cwd = dir.path()};
  small.limits.image_bytes = 8;
  const auto refused = call_tool("read", {{"path", "i.png"}}, small);
  CHECK(refused.is_error);
  CHECK(refused.joined_text().find("over the limit") != std::string::npos);
}

TEST_CASE("read recognises jpeg, gif and webp", "[tool][read]") {
  ava::test::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> samples{
      {std::string("\xFF\xD8\xFF\xE0", 4), "image/jpeg"},
      {"GIF89a....", "image/gif"},
      {std::string("RIFF\0\0\0\0WEBPVP8 ", 16), "image/webp"}};
  for (const auto& [bytes, type] : samples) {
    write_bytes(dir.path() / "img", bytes);
    const auto result = call_tool("read", {{"path", "img"}}, dir.path());
    REQUIRE(result.content.size() == 2);
    CHECK(std::get<ava::tool::ImageContent>(result.content[1]).media_type == type);
  }
}

TEST_CASE("read of a missing file or a folder is a tool error", "[tool][read]") {
  ava::test::TempDir dir;
  CHECK(call_tool("read", {{"path", "nope"}}, dir.path()).joined_text() == "File not found: nope");
  CHECK(call_tool("read", {{"path", "."}}, dir.path()).is_error);
}

TEST_CASE("invalid UTF-8 in a text file is replaced, not passed on", "[tool][read]") {
  ava::test::TempDir dir;
  write_bytes(dir.path() / "l.txt", "caf\xE9 ok\n");
  const auto result = call_tool("read", {{"path", "l.txt"}}, dir.path());
  CHECK_FALSE(result.is_error);
  CHECK(result.joined_text() == "     1\tcaf\xEF\xBF\xBD ok");
}
