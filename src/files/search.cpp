#include "ava/files/search.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <algorithm>
#include <cctype>
#include <deque>

#include "ava/base/utf8.hpp"
#include "ava/files/listing.hpp"
#include "files/git.hpp"

namespace ava::files {
namespace {

namespace asio = boost::asio;

char fold(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool word_start(std::string_view path, std::size_t i) {
  if (i == 0) return true;
  const char before = path[i - 1];
  if (before == '/' || before == '_' || before == '-' || before == '.' || before == ' ') {
    return true;
  }
  return std::islower(static_cast<unsigned char>(before)) &&
         std::isupper(static_cast<unsigned char>(path[i]));
}

// Every file under the folder but `.git`, without following links, for a
// project Git does not know. It reads folders on the caller's thread, so it
// stops sooner than Git's list does.
constexpr std::size_t max_walked_files = 50000;
Result<git::FileList> walk(const ProjectRoot& root, std::size_t max_files) {
  git::FileList list;
  std::deque<std::string> folders{""};
  while (!folders.empty()) {
    const std::string folder = std::move(folders.front());
    folders.pop_front();
    auto fd = root.open_beneath(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (!fd) continue;  // unreadable or gone meanwhile: skipped
    DIR* directory = ::fdopendir(fd->get());
    if (directory == nullptr) continue;
    fd->release();
    while (const dirent* item = ::readdir(directory)) {
      const std::string_view name = item->d_name;
      if (name == "." || name == ".." || name == ".git") continue;
      if (item->d_type == DT_DIR) {
        folders.push_back(join(folder, name));
      } else if (item->d_type == DT_REG || item->d_type == DT_LNK) {
        if (list.paths.size() == max_files) {
          list.truncated = true;
          break;
        }
        list.paths.push_back(join(folder, name));
      }
    }
    ::closedir(directory);
    if (list.truncated) break;
  }
  return list;
}

}  // namespace

std::optional<Scored> score_path(std::string_view path, std::string_view query) {
  std::string wanted;
  for (const char c : query) {
    if (c != ' ') wanted += fold(c);
  }
  Scored scored{.match = {.path = std::string(path)}};
  if (wanted.empty()) return scored;
  // From the end backwards: the rightmost match keeps the characters in
  // the file's name where it can.
  std::vector<std::int64_t> positions(wanted.size());
  std::size_t at = path.size();
  for (std::size_t q = wanted.size(); q-- > 0;) {
    while (at > 0 && fold(path[at - 1]) != wanted[q]) --at;
    if (at == 0) return std::nullopt;
    positions[q] = static_cast<std::int64_t>(--at);
  }
  const auto slash = path.rfind('/');
  const std::size_t name_start = slash == std::string_view::npos ? 0 : slash + 1;
  int score = 0;
  for (std::size_t q = 0; q < positions.size(); ++q) {
    const auto i = static_cast<std::size_t>(positions[q]);
    score += 10;
    if (word_start(path, i)) score += 15;
    if (q > 0 && positions[q - 1] + 1 == positions[q]) score += 20;
    if (i >= name_start) score += 12;
  }
  std::string name;
  for (const char c : path.substr(name_start)) name += fold(c);
  if (name == wanted)
    score += 200;
  else if (name.starts_with(wanted))
    score += 100;
  score -= static_cast<int>(std::min<std::size_t>(path.size(), 400) / 8);
  scored.match.positions = std::move(positions);
  scored.score = score;
  return scored;
}

std::vector<protocol::FileMatch> rank(const std::vector<std::string>& paths, std::string_view query,
                                      std::size_t limit) {
  std::vector<Scored> found;
  for (const auto& path : paths) {
    if (auto scored = score_path(path, query)) found.push_back(std::move(*scored));
  }
  const auto better = [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.match.path.size() != b.match.path.size())
      return a.match.path.size() < b.match.path.size();
    return a.match.path < b.match.path;
  };
  const auto keep = std::min(limit, found.size());
  std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
                    better);
  std::vector<protocol::FileMatch> matches;
  matches.reserve(keep);
  for (std::size_t i = 0; i < keep; ++i) matches.push_back(std::move(found[i].match));
  return matches;
}

asio::awaitable<Result<protocol::FileMatches>> search(const ProjectRoot& root, std::string query,
                                                      std::size_t limit) {
  if (query.size() > max_query_bytes || !base::utf8::valid(query)) {
    co_return fail(ErrorCode::invalid_argument, "the query must be UTF-8 of at most 256 bytes");
  }
  limit = std::clamp<std::size_t>(limit, 1, max_search_matches);
  auto listed = co_await git::files(root.folder(), max_search_files);
  if (!listed) {
    auto walked = walk(root, max_walked_files);
    if (!walked) co_return std::unexpected(std::move(walked).error());
    listed = std::move(*walked);
  }
  protocol::FileMatches answer{.query = query,
                               .searched = static_cast<std::int64_t>(listed->paths.size()),
                               .truncated = listed->truncated};
  answer.matches = rank(listed->paths, query, limit);
  co_return answer;
}

}  // namespace ava::files
