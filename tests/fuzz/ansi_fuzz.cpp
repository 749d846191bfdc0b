// What `ava chat` prints of model, tool and file text (ava::ansi): the
// sanitizer and the streamed Markdown renderer, fed as a stream is, in
// chunks of any size.
//
// Input: one byte choosing colour and width, one seeding the chunk sizes,
// then the text. Checks: sanitize is idempotent and leaves no control
// character but tab and newline, and valid UTF-8; the streamed render in
// chunks equals the whole render; without colour the render is the
// sanitized text (a final newline added); with colour every escape sequence
// in the output is one of ours (CSI ... m), never the input's; one_line
// holds no newline.
#include <cctype>
#include <cstdint>
#include <string>

#include "ava/ansi/render.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    if (c < 0x80)
      length = 1;
    else if ((c >> 5) == 0x6)
      length = 2;
    else if ((c >> 4) == 0xE)
      length = 3;
    else if ((c >> 3) == 0x1E)
      length = 4;
    else
      return false;
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return false;
    }
    i += length;
  }
  return true;
}

// No control character but tab and newline (and, when `escapes`, ESC
// starting one of the renderer's own SGR sequences).
void check_safe(std::string_view text, bool escapes) {
  FUZZ_CHECK(valid_utf8(text));
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {
      FUZZ_CHECK(escapes);
      FUZZ_CHECK(i + 1 < text.size() && text[i + 1] == '[');
      std::size_t end = i + 2;
      while (end < text.size() &&
             (std::isdigit(static_cast<unsigned char>(text[end])) != 0 || text[end] == ';')) {
        ++end;
      }
      FUZZ_CHECK(end < text.size() && text[end] == 'm');
      i = end;
      continue;
    }
    FUZZ_CHECK(c >= 0x20 || c == '\n' || c == '\t');
    FUZZ_CHECK(c != 0x7f);
    // C1 controls, U+0080-U+009F, encode as C2 80 - C2 9F.
    if (c == 0xC2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      FUZZ_CHECK(next < 0x80 || next > 0x9F);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ava::fuzz::Bytes input(data, size);
  const std::uint8_t options = input.byte();
  std::uint8_t seed = input.byte();
  const std::string_view text = input.rest();
  const ava::ansi::Style style{.colour = (options & 1) != 0, .width = 20 + (options >> 1)};

  const std::string safe = ava::ansi::sanitize(text);
  check_safe(safe, false);
  FUZZ_CHECK(ava::ansi::sanitize(safe) == safe);

  const std::string whole = ava::ansi::markdown(text, style);
  ava::ansi::MarkdownStream stream(style);
  std::string chunked;
  for (std::size_t at = 0; at < text.size();) {
    seed = static_cast<std::uint8_t>(seed * 73 + 41);
    const std::size_t length = 1 + seed % 17;
    chunked += stream.feed(text.substr(at, length));
    at += length;
  }
  chunked += stream.finish();
  FUZZ_CHECK(chunked == whole);
  check_safe(whole, style.colour);
  if (!style.colour) {
    std::string expected = safe;
    if (!expected.empty() && expected.back() != '\n') expected.push_back('\n');
    FUZZ_CHECK(whole == expected);
  }
  check_safe(ava::ansi::diff(text, style), style.colour);
  const std::string line = ava::ansi::one_line(safe, style.width);
  FUZZ_CHECK(line.find('\n') == std::string::npos);
  return 0;
}
