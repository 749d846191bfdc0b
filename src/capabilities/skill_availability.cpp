#include "ava/capabilities/skill_availability.hpp"

#include <system_error>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"

namespace ava::capabilities {

namespace fs = std::filesystem;

SkillState resolve_skill(std::optional<bool> user, std::optional<bool> project) {
  if (project) return {.enabled = *project, .setting = "project"};
  if (user) return {.enabled = *user, .setting = "user"};
  return {};
}

std::string skill_project_key(const fs::path& folder) {
  std::error_code ec;
  return agent::project_root(fs::absolute(folder, ec)).string();
}

std::map<std::string, SkillState> skill_states(
    const std::vector<CapabilitiesStore::SkillSwitch>& switches, const std::string& project_key) {
  std::map<std::string, std::pair<std::optional<bool>, std::optional<bool>>> by_skill;
  for (const auto& row : switches) {
    auto& [user, project] = by_skill[row.skill];
    if (row.project.empty()) {
      user = row.enabled;
    } else if (row.project == project_key) {
      project = row.enabled;
    }
  }
  std::map<std::string, SkillState> states;
  for (const auto& [skill, pair] : by_skill) states[skill] = resolve_skill(pair.first, pair.second);
  return states;
}

std::set<std::string> disabled_skills_for(const base::Home& home, const fs::path& folder) {
  const fs::path file = CapabilitiesStore::file_of(home);
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  auto store = CapabilitiesStore::open_file(file);
  if (!store) {
    spdlog::warn("skill availability not read, every skill is offered: {}", store.error().message);
    return {};
  }
  return disabled_skills_for(*store, folder);
}

std::set<std::string> disabled_skills_for(const CapabilitiesStore& store, const fs::path& folder) {
  const std::string key = skill_project_key(folder);
  auto switches = store.skill_switches(key);
  if (!switches) {
    spdlog::warn("skill availability not read, every skill is offered: {}",
                 switches.error().message);
    return {};
  }
  std::set<std::string> disabled;
  for (const auto& [skill, state] : skill_states(*switches, key)) {
    if (!state.enabled) disabled.insert(skill);
  }
  return disabled;
}

bool claude_skill_folders(const base::Home& home) {
  std::vector<fs::path> files{home.file("settings.json")};
  if (auto profile = base::profile_settings_file(home.root()); profile && *profile) {
    files.push_back(**profile);
  }
  bool on = true;
  for (const auto& file : files) {
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;
    auto text = base::read_file_limited(file, std::size_t{1} << 20);
    if (!text) continue;  // the settings' own readers report a bad file
    auto document = base::parse_json(*text);
    if (!document || !document->is_object()) continue;
    const auto skills = document->find("skills");
    if (skills == document->end() || !skills->is_object()) continue;
    const auto folders = skills->find("claudeFolders");
    if (folders == skills->end()) continue;
    if (!folders->is_boolean()) {
      spdlog::warn("{}: skills.claudeFolders must be true or false", file.string());
      continue;
    }
    on = folders->get<bool>();
  }
  return on;
}

std::vector<fs::path> skill_roots(const base::Home& home, const fs::path& folder) {
  return agent::default_skill_roots(home.root(), folder, claude_skill_folders(home));
}

Result<std::vector<SkillListing>> list_skills(const base::Home& home,
                                              const CapabilitiesStore& store,
                                              const std::optional<fs::path>& folder) {
  std::vector<fs::path> roots{home.skills()};
  std::string key;
  if (folder) {
    roots = skill_roots(home, *folder);
    key = skill_project_key(*folder);
  }
  AVA_TRY(auto switches, store.skill_switches(key));
  const auto states = skill_states(switches, key);
  std::vector<SkillListing> listings;
  for (auto& skill : agent::discover_skills(roots)) {
    SkillListing listing{.skill = std::move(skill)};
    // discover_skills keeps the later root's skill on a clash: the project's.
    const fs::path root = listing.skill.file.parent_path().parent_path();
    const bool in_project =
        folder && (root == roots.back() || (roots.size() == 4 && root == roots[2]));
    listing.source = in_project ? "project" : "user";
    if (auto it = states.find(listing.skill.name); it != states.end()) listing.state = it->second;
    listings.push_back(std::move(listing));
  }
  return listings;
}

protocol::SkillInfo skill_info(const SkillListing& listing) {
  return {.name = listing.skill.name,
          .description = listing.skill.description,
          .source = listing.source,
          .path = listing.skill.file.string(),
          .enabled = listing.state.enabled,
          .setting = listing.state.setting};
}

}  // namespace ava::capabilities
