#include <catch2/catch.hpp>

#include <string>

#include "ava/proc/capture.hpp"

using ava::proc::OutputCapture;

TEST_CASE("output within the bound is kept whole", "[proc][capture]") {
  OutputCapture capture(16);
  capture.append("hello ");
  capture.append("world");
  CHECK(capture.text() == "hello world");
  CHECK(capture.total_bytes() == 11);
  CHECK_FALSE(capture.truncated());
}

TEST_CASE("output over the bound keeps head and tail and counts the cut", "[proc][capture]") {
  OutputCapture capture(10);
  capture.append("0123456789");
  capture.append("abcdefghij");
  CHECK(capture.total_bytes() == 20);
  CHECK(capture.omitted_bytes() == 10);
  CHECK(capture.text() == "01234\n[... 10 bytes omitted ...]\nfghij");
}

TEST_CASE("the tail follows many small appends in order", "[proc][capture]") {
  OutputCapture capture(8);
  std::string all;
  for (int i = 0; i < 100; ++i) {
    const std::string piece = std::to_string(i) + ",";
    all += piece;
    capture.append(piece);
  }
  CHECK(capture.total_bytes() == all.size());
  const std::string text = capture.text();
  CHECK(text.starts_with(all.substr(0, 4)));
  CHECK(text.ends_with(all.substr(all.size() - 4)));
  CHECK(text.find(std::to_string(all.size() - 8) + " bytes omitted") != std::string::npos);
}

TEST_CASE("truncate_middle uses the same marker", "[proc][capture]") {
  CHECK(ava::proc::truncate_middle("abcdefgh", 4) == "ab\n[... 4 bytes omitted ...]\ngh");
  CHECK(ava::proc::truncate_middle("abc", 4) == "abc");
}
