#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

namespace ava::tool {

// One requested edit: exact text of the original file and its replacement.
struct TextEdit {
  std::string old_text;
  std::string new_text;
};

// A located edit: the byte range [begin, end) of the original and the text
// that takes its place. Lists are sorted by begin and never overlap.
struct Replacement {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string text;
};

// Finds every edit in the ORIGINAL content. Each oldText must be non-empty
// and match exactly once; matches may touch but not overlap. Any failure
// rejects the whole batch: the invalid_argument message has one line per
// problem, naming the edit ("edits[1]: oldText matches 3 times ...").
// A file with CRLF line endings also matches an oldText written with LF
// (the replacement then gets CRLF too); that is still one exact match of the
// original bytes, just line-ending translated.
Result<std::vector<Replacement>> locate_edits(std::string_view original,
                                              const std::vector<TextEdit>& edits);

// The legacy form: old_string must match exactly once, or at least once with
// replace_all (every non-overlapping occurrence is replaced).
Result<std::vector<Replacement>> locate_legacy_edit(std::string_view original, const TextEdit& edit,
                                                    bool replace_all);

// The original with the replacements applied; bytes outside them are untouched.
std::string apply_replacements(std::string_view original,
                               const std::vector<Replacement>& replacements);

// A unified diff ("--- a/label", "+++ b/label", @@ hunks) of the replacements
// with `context` unchanged lines around each change.
std::string unified_diff(std::string_view original, const std::vector<Replacement>& replacements,
                         std::string_view label, std::size_t context = 3);

}  // namespace ava::tool
