#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "ava/base/error.hpp"

namespace ava::base {

// Reads one environment variable; injectable so resolution is testable.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
std::optional<std::string> process_env(const char* name);

// AVA_HOME: every store of one execution machine lives below it. The folder is
// private to its owner (0700) because it holds credentials and tokens.
class Home {
 public:
  // AVA_HOME if set and non-empty, else $HOME/.ava. Creates the folder 0700
  // and tightens an existing one that is group- or world-accessible.
  static Result<Home> resolve(const EnvLookup& env = process_env);
  // An explicit folder, created and permissioned the same way.
  static Result<Home> at(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path sessions() const { return root_ / "sessions"; }
  std::filesystem::path logs() const { return root_ / "logs"; }
  std::filesystem::path skills() const { return root_ / "skills"; }
  std::filesystem::path worktrees() const { return root_ / "worktrees"; }
  std::filesystem::path file(std::string_view name) const { return root_ / name; }

  // Creates a sub-folder of the home (0700), e.g. sessions/ before the first log.
  Result<std::filesystem::path> ensure_dir(std::string_view name) const;

 private:
  explicit Home(std::filesystem::path root) : root_(std::move(root)) {}
  std::filesystem::path root_;
};

// The settings profile in use (docs/workflows.md): AVA_PROFILE, which
// `ava --profile NAME` sets; its AVA_HOME/profiles/<name>.json overlays
// settings.json. nullopt: none. invalid_argument for a name that is not 1-64
// of A-Z a-z 0-9 . _ - (not starting with a dot).
Result<std::optional<std::string>> active_profile(const EnvLookup& env = process_env);
// That profile's file under `home`, or nullopt without a profile;
// not_found when the profile names a file that does not exist.
Result<std::optional<std::filesystem::path>> profile_settings_file(
    const std::filesystem::path& home, const EnvLookup& env = process_env);

// mkdir -p with mode 0700 for every folder it creates, then chmod 0700 on the
// last one if it is looser.
Result<void> ensure_private_dir(const std::filesystem::path& path);

}  // namespace ava::base
