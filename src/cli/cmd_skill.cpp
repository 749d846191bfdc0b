// `ava skill list|add|enable|disable|reset`: which skills agents may use, kept in
// AVA_HOME/capabilities.sqlite3 (docs/skills.md).

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/skill_availability.hpp"
#include "ava/capabilities/skill_install.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr CommandName command_name{"skill"};

// The folder whose project the command looks at: --project, else this one.
fs::path folder_of(const std::string& project) {
  std::error_code ec;
  return project.empty() ? fs::current_path(ec) : fs::absolute(project, ec);
}

struct Opened {
  base::Home home;
  capabilities::CapabilitiesStore store;
};

Result<Opened> open_store() {
  AVA_TRY(auto home, base::Home::resolve());
  AVA_TRY(auto store, capabilities::CapabilitiesStore::open(home));
  return Opened{.home = std::move(home), .store = std::move(store)};
}

std::string describe(const capabilities::SkillState& state) {
  const char* on = state.enabled ? "enabled" : "disabled";
  if (state.setting == "default") return on;
  return fmt::format("{} ({} setting)", on, state.setting);
}

Result<int> list(const std::string& project, bool as_json) {
  AVA_TRY(auto opened, open_store());
  const fs::path folder = folder_of(project);
  AVA_TRY(auto skills, capabilities::list_skills(opened.home, opened.store, folder));
  const std::string key = capabilities::skill_project_key(folder);
  if (as_json) {
    json items = json::array();
    for (const auto& skill : skills) {
      items.push_back(protocol::to_json(capabilities::skill_info(skill)));
    }
    std::printf("%s\n", json{{"project", key}, {"skills", items}}.dump(2).c_str());
    return 0;
  }
  if (skills.empty()) {
    std::printf("No skills for %s (folders with a SKILL.md under %s or %s)\n", key.c_str(),
                opened.home.skills().c_str(), (fs::path(key) / ".ava" / "skills").c_str());
    return 0;
  }
  std::size_t width = 0;
  for (const auto& skill : skills) width = std::max(width, skill.skill.name.size());
  std::printf("Skills for %s:\n", key.c_str());
  for (const auto& skill : skills) {
    std::fputs(fmt::format("  {:<{}}  {:<7}  {:<26}  {}\n", skill.skill.name, width, skill.source,
                           describe(skill.state), skill.skill.description)
                   .c_str(),
               stdout);
  }
  return 0;
}

struct SwitchFlags {
  std::string name;
  std::string project;
  bool force = false;
};

// enabled: on/off; nullopt removes the switch (reset).
Result<int> set(const SwitchFlags& flags, std::optional<bool> enabled) {
  AVA_TRY(auto opened, open_store());
  const fs::path folder = folder_of(flags.project);
  // Without --project the switch is user-wide; the names checked against
  // are still those this folder's agents find.
  const std::string key =
      flags.project.empty() ? std::string() : capabilities::skill_project_key(folder);
  const std::string where = key.empty() ? "for every project" : "in " + key;
  AVA_TRY(auto skills, capabilities::list_skills(opened.home, opened.store, folder));
  bool known = false;
  std::string names;
  for (const auto& skill : skills) {
    known = known || skill.skill.name == flags.name;
    names += (names.empty() ? "" : ", ") + skill.skill.name;
  }
  AVA_TRY(auto existing, opened.store.skill_enabled(flags.name, key));
  if (!known && !flags.force && !(!enabled && existing.has_value())) {
    return fail(
        ErrorCode::not_found,
        fmt::format(
            "no skill named {} in {}; known: {} (--force switches a name that is not found)",
            flags.name, capabilities::skill_project_key(folder), names.empty() ? "none" : names));
  }
  AVA_TRY_VOID(opened.store.set_skill_enabled(flags.name, key, enabled));
  if (!enabled) {
    std::printf(existing.has_value() ? "Removed the setting of skill %s %s\n"
                                     : "Skill %s had no setting %s\n",
                flags.name.c_str(), where.c_str());
  } else {
    std::printf("%s skill %s %s\n", *enabled ? "Enabled" : "Disabled", flags.name.c_str(),
                where.c_str());
  }
  return 0;
}

struct AddFlags {
  std::string source;
  bool project = false;
  std::string folder;
  bool force = false;
};

// `ava skill add`: into AVA_HOME/skills, or with --project the project's
// .ava/skills (git URLs are cloned; docs/skills.md).
Result<int> add(const AddFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  const fs::path into =
      flags.project
          ? fs::path(capabilities::skill_project_key(folder_of(flags.folder))) / ".ava" / "skills"
          : home.skills();
  boost::asio::io_context io;
  std::optional<Result<std::vector<capabilities::InstalledSkill>>> outcome;
  boost::asio::co_spawn(
      io,
      capabilities::install_skills({.source = flags.source, .into = into, .replace = flags.force}),
      [&](const std::exception_ptr& error, Result<std::vector<capabilities::InstalledSkill>> done) {
        if (error) std::rethrow_exception(error);
        outcome = std::move(done);
      });
  io.run();
  if (!outcome) return fail(ErrorCode::internal, "the install did not finish");
  AVA_TRY(const auto installed, std::move(*outcome));
  for (const auto& skill : installed) {
    std::printf("Added skill %s (%s)\n", skill.name.c_str(), skill.folder.c_str());
  }
  return 0;
}

}  // namespace

void add_skill_commands(CLI::App& cli, CliContext& context) {
  auto* skill = cli.add_subcommand("skill", "Choose which skills agents may use");
  skill->require_subcommand(1);

  auto list_project = std::make_shared<std::string>();
  auto list_json = std::make_shared<bool>(false);
  auto* list_command = skill->add_subcommand(
      "list", "List the skills agents find here, and whether each is enabled and by which setting");
  list_command->add_option("--project", *list_project,
                           "A folder of the project to look at (default: this one)");
  list_command->add_flag("--json", *list_json, "Print JSON");
  list_command->callback([&context, list_project, list_json] {
    finish(context, command_name, list(*list_project, *list_json));
  });

  auto add_flags = std::make_shared<AddFlags>();
  auto* add_command = skill->add_subcommand(
      "add", "Copy skills from a folder or a git repository into your skills (or the project's)");
  add_command->add_option("source", add_flags->source, "A folder, or a git URL")->required();
  add_command->add_flag("--project", add_flags->project,
                        "Into the project's .ava/skills instead of AVA_HOME/skills");
  add_command->add_option("--cwd", add_flags->folder,
                          "The project folder for --project (default: this one)");
  add_command->add_flag("--force", add_flags->force, "Replace skills of the same name");
  add_command->callback([&context, add_flags] { finish(context, command_name, add(*add_flags)); });

  struct Verb {
    const char* name;
    const char* help;
    std::optional<bool> enabled;
  };
  for (const Verb& verb :
       {Verb{"enable", "Switch a skill on (for every project, or in one)", true},
        Verb{"disable", "Switch a skill off (for every project, or in one)", false},
        Verb{"reset", "Remove a skill's setting (for every project, or in one)", std::nullopt}}) {
    auto flags = std::make_shared<SwitchFlags>();
    auto* command = skill->add_subcommand(verb.name, verb.help);
    command->add_option("name", flags->name, "The skill's name")->required();
    command->add_option("--project", flags->project,
                        "Only in the project that holds this folder (a project's setting "
                        "overrides the one for every project)");
    if (verb.enabled) {
      command->add_flag("--force", flags->force, "Accept a name that no SKILL.md here has");
    }
    command->callback([&context, flags, enabled = verb.enabled] {
      finish(context, command_name, set(*flags, enabled));
    });
  }
}

}  // namespace ava::cli
