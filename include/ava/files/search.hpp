#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/files/paths.hpp"
#include "ava/protocol/files.hpp"

namespace ava::files {

// One search looks at no more files than this.
inline constexpr std::size_t max_search_files = 200000;
inline constexpr std::size_t max_search_matches = 200;
inline constexpr std::size_t max_query_bytes = 256;

// Quick open: the project's files (Git's tracked and untracked ones that are
// not ignored, else every file under the folder but `.git`) whose path
// holds the query's characters in order, ignoring case; best first.
boost::asio::awaitable<Result<protocol::FileMatches>> search(const ProjectRoot& root,
                                                             std::string query, std::size_t limit);

// The ranking on its own. A match prefers the file's name over its folders,
// the starts of words, and runs of consecutive characters; nullopt when
// `path` does not hold the query.
struct Scored {
  protocol::FileMatch match;
  int score = 0;
};
std::optional<Scored> score_path(std::string_view path, std::string_view query);
std::vector<protocol::FileMatch> rank(const std::vector<std::string>& paths, std::string_view query,
                                      std::size_t limit);

}  // namespace ava::files
