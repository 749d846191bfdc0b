#include "ava/capabilities/skill_install.hpp"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include "ava/agent/prompt.hpp"
#include "ava/base/id.hpp"
#include "ava/proc/run.hpp"

namespace ava::capabilities {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t max_skill_bytes = std::uintmax_t{20} << 20;
constexpr std::size_t max_skill_files = 2000;

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '.') return false;
  return std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// The folders under `folder` (itself, then two levels down) with a SKILL.md.
std::vector<fs::path> skill_folders(const fs::path& folder) {
  std::error_code ec;
  if (fs::is_regular_file(folder / "SKILL.md", ec)) return {folder};
  std::vector<fs::path> found;
  auto scan = [&](const fs::path& dir, auto& self, int depth) -> void {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_symlink(ec) || !entry.is_directory(ec)) continue;
      if (entry.path().filename() == ".git") continue;
      if (fs::is_regular_file(entry.path() / "SKILL.md", ec)) {
        found.push_back(entry.path());
      } else if (depth < 2) {
        self(entry.path(), self, depth + 1);
      }
    }
  };
  scan(folder, scan, 1);
  std::ranges::sort(found);
  return found;
}

// Every regular file below `from`, links and .git left out, within bounds.
Result<std::vector<fs::path>> files_of(const fs::path& from) {
  std::vector<fs::path> files;
  std::uintmax_t bytes = 0;
  std::error_code ec;
  fs::recursive_directory_iterator it(from, fs::directory_options::none, ec), end;
  if (ec)
    return fail(ErrorCode::io, fmt::format("cannot read {}: {}", from.string(), ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec)
      return fail(ErrorCode::io, fmt::format("cannot read {}: {}", from.string(), ec.message()));
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    bytes += it->file_size(ec);
    files.push_back(fs::relative(it->path(), from, ec));
    if (files.size() > max_skill_files || bytes > max_skill_bytes) {
      return fail(ErrorCode::limit_exceeded,
                  fmt::format("{} holds more than {} files or {} MiB: not a skill", from.string(),
                              max_skill_files, max_skill_bytes >> 20));
    }
  }
  return files;
}

Result<InstalledSkill> copy_one(const fs::path& from, const SkillSource& source) {
  auto skills = agent::discover_skills({from.parent_path()});
  std::string name = from.filename().string();
  for (const auto& skill : skills) {
    if (skill.file.parent_path() == from) name = skill.name;
  }
  if (!valid_name(name)) {
    return fail(ErrorCode::invalid_argument,
                fmt::format("{}: the skill's name \"{}\" is not 1-64 of a-z A-Z 0-9 . _ -",
                            from.string(), name));
  }
  const fs::path target = source.into / name;
  std::error_code ec;
  const bool exists = fs::exists(fs::symlink_status(target, ec));
  if (exists && !source.replace) {
    return fail(ErrorCode::already_exists,
                fmt::format("a skill named {} is already in {} (--force replaces it)", name,
                            source.into.string()));
  }
  AVA_TRY(const auto files, files_of(from));
  // Copied beside the target first, then swapped in: never half a skill.
  const fs::path staging = source.into / fmt::format(".{}.{}", name, base::new_id());
  for (const auto& file : files) {
    fs::create_directories((staging / file).parent_path(), ec);
    fs::copy_file(from / file, staging / file, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      fs::remove_all(staging, ec);
      return fail(ErrorCode::io,
                  fmt::format("cannot copy {}: {}", (from / file).string(), ec.message()));
    }
  }
  if (exists) fs::remove_all(target, ec);
  fs::rename(staging, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    return fail(ErrorCode::io,
                fmt::format("cannot move into {}: {}", target.string(), ec.message()));
  }
  return InstalledSkill{.name = name, .folder = target};
}

}  // namespace

bool is_git_url(std::string_view source) {
  return source.starts_with("https://") || source.starts_with("http://") ||
         source.starts_with("ssh://") || source.starts_with("git://") ||
         source.starts_with("file://") || source.starts_with("git@") || source.ends_with(".git");
}

Result<std::vector<InstalledSkill>> copy_skills(const fs::path& folder, const SkillSource& source) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    return fail(ErrorCode::not_found, folder.string() + " is not a folder");
  }
  const auto found = skill_folders(folder);
  if (found.empty()) {
    return fail(ErrorCode::not_found,
                fmt::format("no SKILL.md in {} or the folders below it", folder.string()));
  }
  // Every name is checked before anything is copied.
  if (!source.replace) {
    for (const auto& from : found) {
      if (fs::exists(source.into / from.filename(), ec)) {
        return fail(ErrorCode::already_exists,
                    fmt::format("a skill named {} is already in {} (--force replaces it)",
                                from.filename().string(), source.into.string()));
      }
    }
  }
  fs::create_directories(source.into, ec);
  if (ec) return fail(ErrorCode::io, "cannot create " + source.into.string());
  std::vector<InstalledSkill> installed;
  for (const auto& from : found) {
    AVA_TRY(auto skill, copy_one(from, source));
    installed.push_back(std::move(skill));
  }
  return installed;
}

boost::asio::awaitable<Result<std::vector<InstalledSkill>>> install_skills(SkillSource source) {
  if (!is_git_url(source.source)) {
    std::error_code ec;
    co_return copy_skills(fs::absolute(source.source, ec), source);
  }
  if (source.source.starts_with("-")) co_return fail(ErrorCode::invalid_argument, "not a URL");
  const fs::path clone = fs::temp_directory_path() / ("ava-skill-" + base::new_id());
  proc::RunOptions run{.spawn = {.argv = {"git", "clone", "--depth", "1", "--quiet", "--",
                                          source.source, clone.string()},
                                 .env = {{"GIT_TERMINAL_PROMPT", "0"},
                                         {"GIT_ALLOW_PROTOCOL", "file:git:http:https:ssh"}}},
                       .timeout = std::chrono::seconds(60)};
  auto cloned = co_await proc::run(std::move(run));
  Result<std::vector<InstalledSkill>> installed =
      fail(ErrorCode::unavailable, "git clone did not run");
  if (!cloned) {
    installed = fail(cloned.error().code, "git clone: " + cloned.error().message);
  } else if (!cloned->status.success() || cloned->timed_out) {
    installed = fail(ErrorCode::unavailable,
                     fmt::format("git clone {} failed ({}): {}", source.source,
                                 cloned->timed_out ? "timed out" : cloned->status.describe(),
                                 cloned->err.text.substr(0, 500)));
  } else {
    installed = copy_skills(clone, source);
  }
  std::error_code ignored;
  fs::remove_all(clone, ignored);
  co_return installed;
}

}  // namespace ava::capabilities
