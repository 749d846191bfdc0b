#pragma once

#include <string>
#include <string_view>

// Text for a terminal: what `ava chat` prints. Everything shown passes
// through here, and all of it may come from a model, a tool or a file, so
// it is made safe first (sanitize) and only then given this package's own
// escape sequences. Without colour (NO_COLOR, a pipe, TERM=dumb) the text is
// printed as written, Markdown markers included, for scripts and logs.
namespace ava::ansi {

struct Style {
  bool colour = true;
  int width = 80;  // columns, for rules and the tool lines' cut
};

// Whether `fd` is a terminal that takes cursor movement (a line redrawn in
// place): a terminal whose TERM is not "dumb".
bool can_redraw(int fd);
// Whether `fd` gets colour: can_redraw and NO_COLOR unset (or empty).
bool colour_wanted(int fd);
// The terminal's columns (TIOCGWINSZ), else COLUMNS, else 80; at least 20.
int terminal_width(int fd);
Style style_for(int fd);

// Removes what a terminal would act on: ESC and the other C0 controls but
// tab and newline (a lone CR too, which would overwrite a line), DEL, the
// C1 controls (U+0080-U+009F); invalid UTF-8 becomes U+FFFD.
std::string sanitize(std::string_view text);

// Select Graphic Rendition around `text` (e.g. "1" bold, "32" green); the
// text unchanged without colour.
std::string paint(std::string_view text, std::string_view sgr, const Style& style);

// One line of inline Markdown: `code`, **bold**, *italic*, [text](url).
std::string inline_markdown(std::string_view line, const Style& style);

// Block Markdown rendered as lines complete, for a streamed answer: feed()
// returns what the lines completed so far render to, finish() the rest (and
// closes a code block the text left open). Headings, lists, quotes, rules
// and fenced code (a diff block coloured as a diff) are recognised.
class MarkdownStream {
 public:
  explicit MarkdownStream(Style style) : style_(style) {}
  std::string feed(std::string_view text);
  std::string finish();

 private:
  std::string render_line(std::string_view line);

  Style style_;
  std::string pending_;
  bool in_code_ = false;
  std::string fence_;  // the opening fence's marker run (``` or ~~~~)
  std::string language_;
};

// A whole Markdown text at once.
std::string markdown(std::string_view text, const Style& style);

// A unified diff: additions green, removals red, hunk heads cyan, file
// heads bold.
std::string diff(std::string_view unified, const Style& style);
std::string diff_line(std::string_view line, const Style& style);

// `text` cut to `columns` display cells (by code points; wide characters
// count as one) with an ellipsis; newlines become spaces.
std::string one_line(std::string_view text, int columns);

}  // namespace ava::ansi
