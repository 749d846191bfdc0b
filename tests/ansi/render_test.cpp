#include <catch2/catch.hpp>

#include <string>

#include "ava/ansi/render.hpp"

using ava::ansi::Style;

namespace {
const Style colour{.colour = true, .width = 80};
const Style plain{.colour = false, .width = 80};
}  // namespace

TEST_CASE("sanitize removes what a terminal would act on", "[ansi]") {
  // An answer that tries to retitle the window, clear the screen and hide
  // text keeps only its printable characters.
  CHECK(ava::ansi::sanitize("a\x1b]0;pwned\x07"
                            "b\x1b[2Jc") == "a]0;pwnedb[2Jc");
  CHECK(ava::ansi::sanitize("line\r\nnext\tx\x7f") == "line\nnext\tx");
  CHECK(ava::ansi::sanitize("over\rwrite") == "overwrite");
  CHECK(ava::ansi::sanitize("c1:\xC2\x9B"
                            "31m") == "c1:31m");                           // CSI as C1
  CHECK(ava::ansi::sanitize("bad \xFF utf8") == "bad \xEF\xBF\xBD utf8");  // U+FFFD
  CHECK(ava::ansi::sanitize("é ü → 日本") == "é ü → 日本");
}

TEST_CASE("without colour Markdown is printed as written", "[ansi]") {
  const std::string text = "# Title\n\n- **bold** and `code`\n```sh\nls\n```\n";
  CHECK(ava::ansi::markdown(text, plain) == text);
  CHECK(ava::ansi::diff("+a\n-b\n", plain) == "+a\n-b\n");
}

TEST_CASE("inline Markdown is styled", "[ansi]") {
  CHECK(ava::ansi::inline_markdown("run `make`", colour) == "run \x1b[36mmake\x1b[0m");
  CHECK(ava::ansi::inline_markdown("**yes**", colour) == "\x1b[1myes\x1b[0m");
  CHECK(ava::ansi::inline_markdown("*it*", colour) == "\x1b[3mit\x1b[0m");
  // snake_case and a lone star stay as written.
  CHECK(ava::ansi::inline_markdown("snake_case_name", colour) == "snake_case_name");
  CHECK(ava::ansi::inline_markdown("2 * 3", colour) == "2 * 3");
  CHECK(ava::ansi::inline_markdown("[docs](https://x.dev)", colour) ==
        "\x1b[1mdocs\x1b[0m \x1b[4;34mhttps://x.dev\x1b[0m");
  CHECK(ava::ansi::inline_markdown("\\*not\\*", colour) == "*not*");
  CHECK(ava::ansi::inline_markdown("open `tick", colour) == "open `tick");
}

TEST_CASE("block Markdown: headings, lists, quotes, code", "[ansi]") {
  const auto out =
      ava::ansi::markdown("## Plan\n- one\n> note\n```diff\n+added\n-removed\n```\ndone", colour);
  CHECK(out.find("\x1b[1mPlan\x1b[0m\n") != std::string::npos);
  CHECK(out.find("\x1b[36m•\x1b[0m one\n") != std::string::npos);
  CHECK(out.find("\x1b[2m│ \x1b[0m\x1b[3mnote\x1b[0m") != std::string::npos);
  CHECK(out.find("\x1b[2m  ╭─ diff\x1b[0m") != std::string::npos);
  CHECK(out.find("\x1b[32m+added\x1b[0m") != std::string::npos);
  CHECK(out.find("\x1b[31m-removed\x1b[0m") != std::string::npos);
  CHECK(out.find("## Plan") == std::string::npos);
  CHECK(out.ends_with("done\n"));
}

TEST_CASE("a streamed answer renders line by line", "[ansi]") {
  ava::ansi::MarkdownStream stream(colour);
  CHECK(stream.feed("Hel").empty());
  CHECK(stream.feed("lo **wor").empty());
  CHECK(stream.feed("ld**\n```\ncode") == "Hello \x1b[1mworld\x1b[0m\n\x1b[2m  ╭─ \x1b[0m\n");
  // An open code block is closed at the end.
  CHECK(stream.finish() == "\x1b[2m  │ \x1b[0mcode\n\x1b[2m  ╰─\x1b[0m\n");
  // Escapes in the stream are removed before styling.
  ava::ansi::MarkdownStream hostile(colour);
  CHECK(hostile.feed("x\x1b[31my\n") == "x[31my\n");
}

TEST_CASE("one_line cuts to the columns", "[ansi]") {
  CHECK(ava::ansi::one_line("a\nb", 10) == "a b");
  CHECK(ava::ansi::one_line("abcdefghij", 5) == "abcd…");
  CHECK(ava::ansi::one_line("日本語です", 3) == "日本…");
}
