#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/prompts/project_context.hpp"
#include "ava/tool/tool.hpp"

namespace ava::agent {

// A skill: instructions the model loads on demand. Only the name and the
// description (from SKILL.md's front matter) go into every request.
struct Skill {
  std::string name;
  std::string description;
  std::filesystem::path file;  // <root>/<folder>/SKILL.md
};

// Skills under each root's <folder>/SKILL.md, sorted by name. A later root
// wins a name clash, so pass the user's folder before the project's. A
// SKILL.md without a name falls back to its folder's name; one without a
// description is skipped (the model could not know when to use it).
std::vector<Skill> discover_skills(const std::vector<std::filesystem::path>& roots);

// The project that holds `cwd`: the nearest folder with .git walking up,
// else cwd itself (canonical).
std::filesystem::path project_root(const std::filesystem::path& cwd);

// Where skills are read from, a later folder winning a name clash:
// ~/.claude/skills, AVA_HOME/skills, <project_root(cwd)>/.claude/skills,
// <project_root(cwd)>/.ava/skills. Without `claude_folders` (settings.json
// "skills": {"claudeFolders": false}) only Ava's two.
std::vector<std::filesystem::path> default_skill_roots(const std::filesystem::path& home,
                                                       const std::filesystem::path& cwd,
                                                       bool claude_folders = true);

// The body of a SKILL.md (front matter removed).
Result<std::string> load_skill_body(const Skill& skill);

// `skill {name}`: returns the instructions of one discovered skill.
std::unique_ptr<tool::Tool> make_skill_tool(std::vector<Skill> skills);

struct PromptInputs {
  std::filesystem::path cwd;
  prompts::ProjectContext project;  // the layered AGENTS.md files (prompts package)
  std::vector<Skill> skills;
  bool memory = false;       // the memory tool is there
  std::string memory_index;  // prompts::memory_index of the notes; empty: none yet
};

// The base prompt plus environment, project context and the skill index.
std::string build_system_prompt(const PromptInputs& inputs);

}  // namespace ava::agent
