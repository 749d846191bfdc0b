#include "ava/prompts/front_matter.hpp"

#include <algorithm>

#include "prompts/text.hpp"

namespace ava::prompts {

std::string_view FrontMatter::body(std::string_view text) const {
  return trim(text.substr(std::min(body_offset, text.size())));
}

FrontMatter parse_front_matter(std::string_view text) {
  FrontMatter result;
  if (!text.starts_with("---")) return result;
  std::size_t pos = text.find('\n');
  if (pos == std::string_view::npos || !trim(text.substr(3, pos - 3)).empty()) return result;
  ++pos;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = std::min(end + 1, text.size());
    if (line == "---") {
      result.body_offset = pos;
      return result;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = trim(line.substr(colon + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    result.fields.emplace(std::string(trim(line.substr(0, colon))), std::string(value));
  }
  return FrontMatter{};
}

}  // namespace ava::prompts
