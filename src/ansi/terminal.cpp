// Safe text and the terminal's capabilities.

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

#include "ava/ansi/render.hpp"
#include "ava/base/utf8.hpp"

namespace ava::ansi {

bool can_redraw(int fd) {
  if (::isatty(fd) == 0) return false;
  const char* term = ::getenv("TERM");
  return term == nullptr || std::strcmp(term, "dumb") != 0;
}

bool colour_wanted(int fd) {
  const char* no_colour = ::getenv("NO_COLOR");
  if (no_colour != nullptr && no_colour[0] != '\0') return false;
  return can_redraw(fd);
}

int terminal_width(int fd) {
  int columns = 0;
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    columns = size.ws_col;
  } else if (const char* env = ::getenv("COLUMNS"); env != nullptr) {
    std::from_chars(env, env + std::strlen(env), columns);
  }
  if (columns <= 0) columns = 80;
  return columns < 20 ? 20 : columns;
}

Style style_for(int fd) { return {.colour = colour_wanted(fd), .width = terminal_width(fd)}; }

std::string sanitize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      // CR of a CRLF is dropped with the rest: the newline does its work.
      if (byte == '\n' || byte == '\t' || (byte >= 0x20 && byte != 0x7F)) out.push_back(text[i]);
      ++i;
      continue;
    }
    const std::size_t length = base::utf8::sequence(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
      continue;
    }
    // C1 controls are two-byte sequences C2 80..C2 9F.
    const bool c1 = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if (!c1) out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string paint(std::string_view text, std::string_view sgr, const Style& style) {
  if (!style.colour || text.empty()) return std::string(text);
  std::string out = "\x1b[";
  out.append(sgr).append("m").append(text).append("\x1b[0m");
  return out;
}

std::string one_line(std::string_view text, int columns) {
  std::string out;
  int used = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = byte < 0x80 ? 1 : base::utf8::sequence(text, i);
    if (length == 0) length = 1;
    if (used + 1 >= columns && i + length < text.size()) {
      out += "…";
      return out;
    }
    if (byte == '\n' || byte == '\r' || byte == '\t') {
      if (out.empty() || out.back() != ' ') out.push_back(' ');
    } else {
      out.append(text.substr(i, length));
    }
    ++used;
    i += length;
  }
  return out;
}

}  // namespace ava::ansi
