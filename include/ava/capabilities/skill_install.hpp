#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"

// `ava skill add PATH|URL` (docs/skills.md): copies skills from a folder or
// a git repository into a skills folder agents read. A source is a folder
// with a SKILL.md (one skill), or one whose subfolders hold them (up to two
// levels down: a repository of skills such as skills/<name>/SKILL.md). A
// git URL (https://, ssh://, git@host:, file://, or ending in .git) is
// cloned shallow into a temporary folder first.
namespace ava::capabilities {

struct SkillSource {
  std::string source;          // a folder, or a git repository's URL
  std::filesystem::path into;  // AVA_HOME/skills or <project>/.ava/skills
  bool replace = false;        // overwrite a skill of the same name
};

struct InstalledSkill {
  std::string name;
  std::filesystem::path folder;  // where it was copied to
};

bool is_git_url(std::string_view source);

// Only regular files are copied (no links, no .git), at most 20 MiB and
// 2,000 files per skill; a skill whose name is taken is refused unless
// `replace`, and nothing of a refused source is written.
Result<std::vector<InstalledSkill>> copy_skills(const std::filesystem::path& folder,
                                                const SkillSource& source);

// A folder, or a git URL cloned with `git` (60 s at most), then copy_skills.
boost::asio::awaitable<Result<std::vector<InstalledSkill>>> install_skills(SkillSource source);

}  // namespace ava::capabilities
