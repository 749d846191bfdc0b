#pragma once

#include <string_view>

namespace ava::policy {

// Glob matching for rules. In paths (`paths` true) `*` and `?` stay within a
// segment, `**` crosses segments and `**/` also matches no segment at all
// ("src/**/x.cpp" matches "src/x.cpp"); in command lines `*` matches
// anything. Runs in time proportional to pattern × text (no backtracking
// blow-up on many stars).
bool glob_match(std::string_view pattern, std::string_view text, bool paths);

}  // namespace ava::policy
