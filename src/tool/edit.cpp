#include "ava/tool/edit.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

namespace ava::tool {
namespace {

// Searches a large original many times; Boyer-Moore-Horspool keeps a 10 MB
// file fast even for long oldTexts.
std::size_t find_from(std::string_view haystack, std::string_view needle, std::size_t from) {
  if (from > haystack.size()) return std::string_view::npos;
  const auto begin = haystack.begin() + static_cast<std::ptrdiff_t>(from);
  const auto found = std::search(begin, haystack.end(),
                                 std::boyer_moore_horspool_searcher(needle.begin(), needle.end()));
  if (found == haystack.end()) return std::string_view::npos;
  return static_cast<std::size_t>(found - haystack.begin());
}

std::size_t count_matches(std::string_view haystack, std::string_view needle) {
  std::size_t count = 0;
  for (std::size_t at = find_from(haystack, needle, 0); at != std::string_view::npos;
       at = find_from(haystack, needle, at + 1)) {
    ++count;
  }
  return count;
}

std::string lf_to_crlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

struct Located {
  std::size_t index;  // position in the request
  Replacement replacement;
};

// Finds one edit; returns the problem text on failure.
std::string locate_one(std::string_view original, const TextEdit& edit, std::size_t index,
                       bool file_uses_crlf, std::vector<Located>& out) {
  if (edit.old_text.empty()) return "oldText is empty; quote the exact text to replace";
  std::string old_text = edit.old_text;
  std::string new_text = edit.new_text;
  auto first = find_from(original, old_text, 0);
  if (first == std::string_view::npos && file_uses_crlf &&
      old_text.find('\n') != std::string::npos && old_text.find('\r') == std::string::npos) {
    old_text = lf_to_crlf(old_text);
    if (new_text.find('\r') == std::string::npos) new_text = lf_to_crlf(new_text);
    first = find_from(original, old_text, 0);
  }
  if (first == std::string_view::npos) {
    return "oldText was not found; it must match the file exactly, including whitespace";
  }
  if (find_from(original, old_text, first + 1) != std::string_view::npos) {
    return fmt::format(
        "oldText matches {} times; include more surrounding lines so it matches once",
        count_matches(original, old_text));
  }
  const std::size_t begin = first;
  out.push_back({index, {begin, begin + old_text.size(), std::move(new_text)}});
  return {};
}

}  // namespace

Result<std::vector<Replacement>> locate_edits(std::string_view original,
                                              const std::vector<TextEdit>& edits) {
  if (edits.empty()) return fail(ErrorCode::invalid_argument, "edits is empty");
  const bool crlf = original.find("\r\n") != std::string_view::npos;
  std::vector<Located> located;
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    if (auto problem = locate_one(original, edits[i], i, crlf, located); !problem.empty()) {
      problems.push_back(fmt::format("edits[{}]: {}", i, problem));
    }
  }
  std::ranges::sort(located, [](const Located& a, const Located& b) {
    return a.replacement.begin < b.replacement.begin;
  });
  for (std::size_t i = 1; i < located.size(); ++i) {
    const auto& before = located[i - 1];
    const auto& after = located[i];
    if (after.replacement.begin < before.replacement.end) {
      const auto [first, second] = std::minmax(before.index, after.index);
      problems.push_back(
          fmt::format("edits[{}] and edits[{}] overlap; merge them into one edit", first, second));
    }
  }
  if (!problems.empty()) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("{}\nNo edits were applied.", fmt::join(problems, "\n")));
  }
  std::vector<Replacement> out;
  out.reserve(located.size());
  for (auto& entry : located) out.push_back(std::move(entry.replacement));
  return out;
}

Result<std::vector<Replacement>> locate_legacy_edit(std::string_view original, const TextEdit& edit,
                                                    bool replace_all) {
  if (!replace_all) return locate_edits(original, {edit});
  if (edit.old_text.empty()) return fail(ErrorCode::invalid_argument, "old_string is empty");
  std::vector<Replacement> out;
  for (std::size_t at = find_from(original, edit.old_text, 0); at != std::string_view::npos;
       at = find_from(original, edit.old_text, at + edit.old_text.size())) {
    out.push_back({at, at + edit.old_text.size(), edit.new_text});
  }
  if (out.empty()) {
    return fail(ErrorCode::invalid_argument,
                "old_string was not found; it must match the file exactly, including whitespace");
  }
  return out;
}

std::string apply_replacements(std::string_view original,
                               const std::vector<Replacement>& replacements) {
  std::size_t size = original.size();
  for (const auto& r : replacements) size = size - (r.end - r.begin) + r.text.size();
  std::string out;
  out.reserve(size);
  std::size_t copied = 0;
  for (const auto& r : replacements) {
    out.append(original.substr(copied, r.begin - copied));
    out.append(r.text);
    copied = r.end;
  }
  out.append(original.substr(copied));
  return out;
}

}  // namespace ava::tool
