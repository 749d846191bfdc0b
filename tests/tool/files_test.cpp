// The file tools' logic on text in hand (the ACP editor tools use it): the
// same numbered listing and the same edit outcomes as from disk.
#include <catch2/catch.hpp>

#include "ava/tool/files.hpp"

using nlohmann::json;
using namespace ava;

namespace {

std::string text_of(const tool::ToolResult& result) { return result.joined_text(); }

}  // namespace

TEST_CASE("read_text lists text in hand as the read tool lists a file", "[tool]") {
  const auto limits = base::Limits::defaults();
  auto listed =
      tool::read_text("one\r\ntwo\nthree\n", json{{"path", "a.txt"}, {"offset", 2}, {"limit", 1}},
                      "/p/a.txt", limits);
  REQUIRE(listed);
  CHECK(text_of(*listed) == "     2\ttwo\n[Showing lines 2-2 of 3. Use offset=3 to continue.]");
  CHECK(listed->details["total_lines"] == 3);
  auto empty = tool::read_text("", json{{"path", "a.txt"}}, "/p/a.txt", limits);
  CHECK(text_of(*empty) == "(empty file)");
  auto past = tool::read_text("x\n", json{{"path", "a.txt"}, {"offset", 5}}, "/p/a.txt", limits);
  CHECK(past->is_error);
  CHECK(text_of(*past) == "offset 5 is past the end of a.txt (1 lines)");
  // Bytes that are not UTF-8 come out valid.
  auto mangled = tool::read_text("a\xff\n", json{{"path", "a.txt"}}, "/p/a.txt", limits);
  CHECK(json(text_of(*mangled)).dump().size() > 0);
}

TEST_CASE("plan_edit gives the new text and the report, or the model's error", "[tool]") {
  const auto limits = base::Limits::defaults();
  const json edits = json::parse(R"({"path": "a", "edits": [{"oldText": "b", "newText": "B"}]})");
  auto planned = tool::plan_edit(edits, "abc\n", "a", "/p/a", limits);
  auto* plan = std::get_if<tool::EditPlan>(&planned);
  REQUIRE(plan);
  CHECK(plan->updated == "aBc\n");
  CHECK(text_of(plan->report) == "Edited a: 1 replacement.");
  CHECK(plan->report.details["diff"].get<std::string>().find("+aBc") != std::string::npos);

  auto missing = tool::plan_edit(edits, "xyz\n", "a", "/p/a", limits);
  REQUIRE(std::holds_alternative<tool::ToolResult>(missing));
  CHECK(std::get<tool::ToolResult>(missing).is_error);

  const json legacy = json::parse(R"({"path": "a", "old_string": "b", "new_string": "b"})");
  auto same = tool::plan_edit(legacy, "abc\n", "a", "/p/a", limits);
  REQUIRE(std::holds_alternative<tool::ToolResult>(same));
  CHECK(text_of(std::get<tool::ToolResult>(same)).starts_with("No change"));
}
