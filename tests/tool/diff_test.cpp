#include <catch2/catch.hpp>

#include <string>

#include "ava/tool/edit.hpp"

namespace {

std::string diff_of(std::string_view original, const std::vector<ava::tool::TextEdit>& edits,
                    std::size_t context = 3) {
  auto located = ava::tool::locate_edits(original, edits);
  REQUIRE(located.has_value());
  return ava::tool::unified_diff(original, *located, "f.txt", context);
}

std::string numbered(int from, int to) {
  std::string out;
  for (int i = from; i <= to; ++i) out += "l" + std::to_string(i) + "\n";
  return out;
}

}  // namespace

TEST_CASE("a one-line change shows its hunk with context", "[tool][diff]") {
  CHECK(diff_of(numbered(1, 10), {{"l5\n", "five\n"}}) ==
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+five\n l6\n l7\n l8\n");
}

TEST_CASE("a change inside a line shows the whole line", "[tool][diff]") {
  CHECK(diff_of("int x = 1;\n", {{"1", "2"}}, 0) ==
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,1 @@\n-int x = 1;\n+int x = 2;\n");
}

TEST_CASE("distant changes get separate hunks with shifted new line numbers", "[tool][diff]") {
  const auto diff = diff_of(numbered(1, 30), {{"l3\n", "a\nb\n"}, {"l25\n", ""}}, 1);
  CHECK(diff ==
        "--- a/f.txt\n+++ b/f.txt\n"
        "@@ -2,3 +2,4 @@\n l2\n-l3\n+a\n+b\n l4\n"
        "@@ -24,3 +25,2 @@\n l24\n-l25\n l26\n");
}

TEST_CASE("nearby changes share one hunk", "[tool][diff]") {
  const auto diff = diff_of(numbered(1, 10), {{"l4", "x"}, {"l6", "y"}}, 1);
  CHECK(diff == "--- a/f.txt\n+++ b/f.txt\n@@ -3,5 +3,5 @@\n l3\n-l4\n+x\n l5\n-l6\n+y\n l7\n");
}

TEST_CASE("a missing final newline is marked", "[tool][diff]") {
  CHECK(diff_of("a\nb", {{"b", "c"}}) ==
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
        "+c\n\\ No newline at end of file\n");
}
