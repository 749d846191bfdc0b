#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ava/agent/prompt.hpp"
#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/protocol/capabilities.hpp"

// Which skills agents may use (docs/skills.md). Switches live in
// capabilities.sqlite3, user-wide (project "") or per project; a project's
// switch overrides the user-wide one, and a skill without a switch is on.
namespace ava::capabilities {

struct SkillState {
  bool enabled = true;
  std::string setting = "default";  // which switch decided: "project", "user" or "default"
};

SkillState resolve_skill(std::optional<bool> user, std::optional<bool> project);

// The folder a project's switches are kept under: the project that holds
// `folder` (agent::project_root), the same folder whose .ava/skills agents read.
std::string skill_project_key(const std::filesystem::path& folder);

// Each switched skill's state in `project_key` ("" for the user-wide view),
// from the rows CapabilitiesStore::skill_switches(project_key) returned.
std::map<std::string, SkillState> skill_states(
    const std::vector<CapabilitiesStore::SkillSwitch>& switches, const std::string& project_key);

// The skills switched off for agents working in `folder`, for
// AgentOptions::disabled_skills. Without capabilities.sqlite3 nothing is
// read or created (ava -p's start-up); a store that cannot be read is
// logged and withholds nothing.
std::set<std::string> disabled_skills_for(const base::Home& home,
                                          const std::filesystem::path& folder);
// The same from a store the caller has open.
std::set<std::string> disabled_skills_for(const CapabilitiesStore& store,
                                          const std::filesystem::path& folder);

// Whether skills are also read from the folders Claude Code keeps them in
// (~/.claude/skills, <project>/.claude/skills): settings.json (with the
// active profile) "skills": {"claudeFolders": false} turns it off.
bool claude_skill_folders(const base::Home& home);
// The folders agents working in `folder` read skills from, in order.
std::vector<std::filesystem::path> skill_roots(const base::Home& home,
                                               const std::filesystem::path& folder);

// A discovered skill as `ava skill list` and GET /api/skills show it.
struct SkillListing {
  agent::Skill skill;
  // "user" (AVA_HOME/skills, ~/.claude/skills) or "project" (<project>/.ava
  // or .claude/skills); the path tells which folder.
  std::string source;
  SkillState state;
};

// The skills agents working in `folder` find, with their state there; for
// nullopt the user-wide view: the user's skills and the user-wide switches.
Result<std::vector<SkillListing>> list_skills(const base::Home& home,
                                              const CapabilitiesStore& store,
                                              const std::optional<std::filesystem::path>& folder);

protocol::SkillInfo skill_info(const SkillListing& listing);

}  // namespace ava::capabilities
