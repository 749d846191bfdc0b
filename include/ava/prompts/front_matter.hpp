#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

// The "---" block at the top of the Markdown files users keep for skills,
// commands and subagents (Claude Code's format): "key: value" lines, quotes
// around a value removed. Enough YAML for the flat fields these files use;
// nested YAML is not read.
namespace ava::prompts {

struct FrontMatter {
  std::map<std::string, std::string, std::less<>> fields;
  std::size_t body_offset = 0;  // where the body starts; 0 without front matter
  std::string_view field(std::string_view name) const {
    const auto it = fields.find(name);
    return it == fields.end() ? std::string_view() : std::string_view(it->second);
  }
  // The text after the front matter, without surrounding blank space.
  std::string_view body(std::string_view text) const;
};

// No opening fence, or no closing one: no front matter (the whole text is
// the body).
FrontMatter parse_front_matter(std::string_view text);

}  // namespace ava::prompts
