// Markdown for the terminal, line by line so a streamed answer shows as it
// comes. Not a full CommonMark parser: the forms models write (headings,
// lists, quotes, rules, fenced code, inline code, emphasis, links) are
// rendered; anything else is printed as written.

#include <algorithm>
#include <cctype>

#include "ava/ansi/render.hpp"

namespace ava::ansi {
namespace {

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::size_t leading_spaces(std::string_view line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? line.size() : first;
}

// "```lang" / "~~~": the marker run (3+ of one character), else empty.
std::string_view fence_of(std::string_view line) {
  const auto indent = leading_spaces(line);
  if (indent > 3 || indent >= line.size()) return {};
  const char marker = line[indent];
  if (marker != '`' && marker != '~') return {};
  std::size_t end = indent;
  while (end < line.size() && line[end] == marker) ++end;
  if (end - indent < 3) return {};
  return line.substr(indent, end - indent);
}

bool is_rule(std::string_view line) {
  char marker = 0;
  int count = 0;
  for (const char c : line) {
    if (c == ' ') continue;
    if (c != '-' && c != '*' && c != '_') return false;
    if (marker != 0 && c != marker) return false;
    marker = c;
    ++count;
  }
  return count >= 3;
}

// The closing delimiter of an emphasis run opened at `open`, or npos.
std::size_t closing(std::string_view line, std::size_t from, std::string_view marker) {
  for (auto at = line.find(marker, from); at != std::string_view::npos;
       at = line.find(marker, at + 1)) {
    if (at == from) continue;  // empty emphasis
    if (line[at - 1] == ' ') continue;
    // `_` closes only at a word's end (snake_case stays as written).
    const auto after = at + marker.size();
    if (marker[0] == '_' && after < line.size() && is_word(line[after])) continue;
    return at;
  }
  return std::string_view::npos;
}

}  // namespace

std::string inline_markdown(std::string_view line, const Style& style) {
  if (!style.colour) return std::string(line);
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && std::ispunct(static_cast<unsigned char>(line[i + 1]))) {
      out.push_back(line[i + 1]);
      i += 2;
      continue;
    }
    if (c == '`') {
      std::size_t ticks = 0;
      while (i + ticks < line.size() && line[i + ticks] == '`') ++ticks;
      const auto end = line.find(std::string(ticks, '`'), i + ticks);
      if (end != std::string_view::npos) {
        out += paint(line.substr(i + ticks, end - i - ticks), "36", style);
        i = end + ticks;
        continue;
      }
      out.append(line.substr(i, ticks));
      i += ticks;
      continue;
    }
    if (c == '*' || c == '_') {
      const bool strong = i + 1 < line.size() && line[i + 1] == c;
      const std::string marker(strong ? 2 : 1, c);
      const auto body = i + marker.size();
      const bool opens =
          body < line.size() && line[body] != ' ' && (c == '*' || i == 0 || !is_word(line[i - 1]));
      const auto end = opens ? closing(line, body, marker) : std::string_view::npos;
      if (end != std::string_view::npos) {
        out +=
            paint(inline_markdown(line.substr(body, end - body), style), strong ? "1" : "3", style);
        i = end + marker.size();
        continue;
      }
      out.append(marker);
      i = body;
      continue;
    }
    if (c == '[') {
      const auto close = line.find("](", i + 1);
      const auto end = close == std::string_view::npos ? close : line.find(')', close + 2);
      if (end != std::string_view::npos &&
          line.substr(i + 1, close - i - 1).find('[') == std::string_view::npos) {
        const auto text = line.substr(i + 1, close - i - 1);
        const auto url = line.substr(close + 2, end - close - 2);
        out += paint(inline_markdown(text, style), "1", style);
        if (url != text) out += " " + paint(url, "4;34", style);
        i = end + 1;
        continue;
      }
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

std::string MarkdownStream::render_line(std::string_view line) {
  if (!style_.colour) return std::string(line) + "\n";
  const auto fence = fence_of(line);
  if (in_code_) {
    if (!fence.empty() && fence[0] == fence_[0] && fence.size() >= fence_.size() &&
        line.find_first_not_of(' ', line.find(fence) + fence.size()) == std::string_view::npos) {
      in_code_ = false;
      return paint("  ╰─", "2", style_) + "\n";
    }
    const bool as_diff = language_ == "diff" || language_ == "patch";
    return paint("  │ ", "2", style_) + (as_diff ? diff_line(line, style_) : std::string(line)) +
           "\n";
  }
  if (!fence.empty()) {
    in_code_ = true;
    fence_ = std::string(fence);
    auto info = line.substr(line.find(fence) + fence.size());
    info.remove_prefix(std::min(info.size(), leading_spaces(info)));
    language_ = std::string(info.substr(0, info.find(' ')));
    return paint("  ╭─ " + language_, "2", style_) + "\n";
  }
  const auto indent = leading_spaces(line);
  const auto rest = line.substr(indent);
  if (rest.empty()) return "\n";
  if (indent < 4 && rest[0] == '#') {
    const auto level = rest.find_first_not_of('#');
    if (level != std::string_view::npos && level <= 6 && rest[level] == ' ') {
      const auto title = inline_markdown(rest.substr(level + 1), style_);
      return paint(title, level == 1 ? "1;4" : "1", style_) + "\n";
    }
  }
  if (indent < 4 && is_rule(rest)) {
    std::string bar;
    for (int i = 0; i < std::min(style_.width, 60); ++i) bar += "─";
    return paint(bar, "2", style_) + "\n";
  }
  if (rest[0] == '>') {
    auto quoted = rest.substr(1);
    if (!quoted.empty() && quoted[0] == ' ') quoted.remove_prefix(1);
    return std::string(indent, ' ') + paint("│ ", "2", style_) +
           paint(inline_markdown(quoted, style_), "3", style_) + "\n";
  }
  if (rest.size() >= 2 && (rest[0] == '-' || rest[0] == '*' || rest[0] == '+') && rest[1] == ' ') {
    return std::string(indent, ' ') + paint("•", "36", style_) + " " +
           inline_markdown(rest.substr(2), style_) + "\n";
  }
  return std::string(indent, ' ') + inline_markdown(rest, style_) + "\n";
}

// Lines are made safe whole, not chunk by chunk: a streamed chunk may end
// inside a UTF-8 sequence, which the next one completes.
std::string MarkdownStream::feed(std::string_view text) {
  pending_ += text;
  std::string out;
  std::size_t start = 0;
  for (auto end = pending_.find('\n'); end != std::string::npos; end = pending_.find('\n', start)) {
    out += render_line(sanitize(std::string_view(pending_).substr(start, end - start)));
    start = end + 1;
  }
  pending_.erase(0, start);
  return out;
}

std::string MarkdownStream::finish() {
  std::string out;
  if (!pending_.empty()) out += render_line(sanitize(pending_));
  pending_.clear();
  if (in_code_ && style_.colour) out += paint("  ╰─", "2", style_) + "\n";
  in_code_ = false;
  return out;
}

std::string markdown(std::string_view text, const Style& style) {
  MarkdownStream stream(style);
  std::string out = stream.feed(text);
  out += stream.finish();
  return out;
}

std::string diff_line(std::string_view line, const Style& style) {
  if (line.starts_with("+++") || line.starts_with("---")) return paint(line, "1", style);
  if (line.starts_with("@@")) return paint(line, "36", style);
  if (line.starts_with("+")) return paint(line, "32", style);
  if (line.starts_with("-")) return paint(line, "31", style);
  return std::string(line);
}

std::string diff(std::string_view unified, const Style& style) {
  const std::string safe = sanitize(unified);
  std::string out;
  std::size_t start = 0;
  while (start < safe.size()) {
    auto end = safe.find('\n', start);
    if (end == std::string::npos) end = safe.size();
    out += diff_line(std::string_view(safe).substr(start, end - start), style) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace ava::ansi
