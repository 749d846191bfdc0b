#include <algorithm>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "ava/session/log_writer.hpp"
#include "session/json_writer.hpp"

namespace ava::session {

namespace {

void collect_strings(nlohmann::json& node, std::vector<std::string*>& out) {
  if (node.is_string()) {
    out.push_back(&node.get_ref<std::string&>());
  } else if (node.is_structured()) {
    for (auto& child : node) collect_strings(child, out);  // values only, never keys
  }
}

std::string truncation_marker(std::size_t cut, std::size_t limit) {
  return fmt::format(
      "\n[... {} bytes truncated by Ava: the event exceeded the {}-byte record limit]", cut, limit);
}

std::size_t encoded_size(const nlohmann::json& object) {
  std::string line;
  write_json(object, line);
  return line.size();
}

// The largest length L such that cutting every string longer than L down to
// L (plus a marker) removes at least `excess` bytes: the long strings are
// shortened evenly and the short ones are left alone.
std::size_t water_level(std::vector<std::size_t> lengths, std::size_t excess, std::size_t marker) {
  std::ranges::sort(lengths, std::greater<>());
  std::size_t removed_above = 0;  // bytes removed if all strings so far were cut to the next length
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const std::size_t next = i + 1 < lengths.size() ? lengths[i + 1] : 0;
    // Cutting the first i+1 strings to `next` removes this many bytes.
    const std::size_t removed = removed_above + (i + 1) * (lengths[i] - next);
    const std::size_t cost = (i + 1) * marker;
    if (removed >= excess + cost) {
      // Somewhere between next and lengths[i]: solve for the exact level.
      const std::size_t need = excess + cost - removed_above;
      return lengths[i] - (need + i) / (i + 1);
    }
    removed_above = removed;
  }
  return 0;
}

}  // namespace

bool bound_record(nlohmann::json& object, std::size_t limit) {
  // JSON escaping makes the byte estimate inexact, so measure and repeat.
  for (int round = 0; round < 8; ++round) {
    const std::size_t size = encoded_size(object);
    if (size <= limit) return true;
    std::vector<std::string*> strings;
    collect_strings(object, strings);
    std::vector<std::size_t> lengths;
    lengths.reserve(strings.size());
    for (const auto* text : strings) lengths.push_back(text->size());
    const std::size_t marker = truncation_marker(size, limit).size();
    const std::size_t level = water_level(lengths, size - limit, marker);
    bool cut_any = false;
    for (auto* text : strings) {
      if (text->size() <= level || text->size() <= marker) continue;
      const std::size_t keep = base::utf8::floor_boundary(*text, level);
      const std::size_t cut = text->size() - keep;
      text->resize(keep);
      *text += truncation_marker(cut, limit);
      cut_any = true;
    }
    if (!cut_any) return false;
  }
  return encoded_size(object) <= limit;
}

}  // namespace ava::session
