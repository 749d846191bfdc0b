#include "ava/prompts/project_context.hpp"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "prompts/text.hpp"

namespace ava::prompts {
namespace {

namespace fs = std::filesystem;

struct Found {
  ContextFile file;
  std::string text;
};

// The first of `names` in `dir` that is a readable regular file.
bool take_first(const fs::path& dir, std::initializer_list<const char*> names, const char* scope,
                std::size_t budget, std::vector<Found>& into) {
  for (const char* name : names) {
    Found found{.file = {.path = dir / name, .scope = scope}};
    auto text = read_head(found.file.path, budget, found.file.bytes);
    if (!text) continue;
    found.text = std::move(*text);
    into.push_back(std::move(found));
    return true;
  }
  return false;
}

fs::path canonical_or(const fs::path& path) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(path, ec);
  return ec ? path.lexically_normal() : out;
}

}  // namespace

fs::path repository_root(const fs::path& cwd) {
  const fs::path start = canonical_or(cwd);
  std::error_code ec;
  for (fs::path dir = start;; dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return dir;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return start;
  }
}

ProjectContext load_project_context(const ContextPlaces& places) {
  const fs::path cwd = canonical_or(places.cwd);
  const fs::path root = repository_root(cwd);
  // The folders from the root down to cwd.
  std::vector<fs::path> chain;
  for (fs::path dir = cwd;; dir = dir.parent_path()) {
    chain.push_back(dir);
    if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir) break;
  }
  std::ranges::reverse(chain);

  std::vector<Found> found;
  for (const auto& dir : chain) {
    take_first(dir, {"AGENTS.md", "CLAUDE.md"}, "project", places.budget, found);
  }
  if (!places.home.empty()) take_first(places.home, {"AGENTS.md"}, "user", places.budget, found);
  for (auto dir = chain.rbegin(); dir != chain.rend(); ++dir) {
    if (take_first(*dir, {"AGENTS.local.md", "CLAUDE.local.md"}, "local", places.budget, found))
      break;
  }

  // Over the budget: cut from the least specific end.
  std::size_t total = 0;
  for (const auto& f : found) total += f.text.size();
  for (auto& f : found) {
    if (total <= places.budget) break;
    const std::size_t keep = f.text.size() - std::min(f.text.size(), total - places.budget);
    const std::size_t before = f.text.size();
    f.text = std::string(base::utf8::truncate(f.text, keep));
    total -= before - f.text.size();
  }

  ProjectContext context;
  for (auto& f : found) {
    f.file.included = f.text.size();
    if (f.text.empty()) {
      context.files.push_back(std::move(f.file));
      continue;
    }
    const bool cut = f.file.included < f.file.bytes;
    context.text += fmt::format(
        "<instructions file=\"{}\" scope=\"{}\">\n{}{}\n</instructions>\n", f.file.path.string(),
        f.file.scope, f.text,
        cut ? fmt::format("\n[cut: the file has {} bytes, {} shown]", f.file.bytes, f.file.included)
            : std::string());
    context.files.push_back(std::move(f.file));
  }
  return context;
}

}  // namespace ava::prompts
