#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ava/base/error.hpp"
#include "ava/policy/hooks.hpp"
#include "ava/policy/policy.hpp"

// Where rules and the mode come from: the "permissions" block of the user's
// AVA_HOME/settings.json, the project's .ava/settings.json and its
// uncommitted .ava/settings.local.json (in that order), then flags. The
// block has Claude Code's shape:
//   {"permissions": {"allow": [...], "ask": [...], "deny": [...],
//                    "defaultMode": "acceptEdits"}}
// Rules add up across the files; the last mode given wins. A cloned
// repository must not widen its own permissions: the committed
// .ava/settings.json may only narrow (deny and ask rules, the ask and plan
// modes, a sandbox that is on; no hooks, which run commands) unless the user lists the project in
// AVA_HOME/settings.json "trustedProjects"; what it would widen is reported
// in Effective::ignored.
namespace ava::policy {

struct Flags {
  std::optional<Mode> mode;             // --permission-mode
  std::vector<std::string> allowed;     // --allowed-tools
  std::vector<std::string> disallowed;  // --disallowed-tools
  std::optional<std::string> sandbox;   // --sandbox: read-only, workspace-write, off
};

// The "sandbox" setting: {"mode": "workspace-write", "network": false,
// "writableRoots": [...]} (or the mode alone as a string). Unset fields
// leave the caller's default.
struct SandboxSettings {
  std::optional<std::string> mode;          // read-only, workspace-write, off
  std::optional<bool> network;              // allow network connections from commands
  std::vector<std::string> writable_roots;  // more folders workspace-write may write
  std::string source;                       // the file or flag that set the mode
};

// One rule of the effective set and where it was written.
struct ListedRule {
  Verdict list = Verdict::allow;
  Rule rule;
  std::string source;  // a file's path, or "--allowed-tools" / "--disallowed-tools"
};

// A setting of the project's committed .ava/settings.json that would widen
// what runs without asking, left out because the user has not trusted the
// project (AVA_HOME/settings.json "trustedProjects").
struct IgnoredSetting {
  std::string setting;  // "allow bash(npm:*)", "defaultMode auto", "sandbox off", ...
  std::string source;
};

struct Effective {
  RuleSet rules;
  std::string mode_source;  // the file or flag that set the mode, or "default"
  std::vector<ListedRule> listed;
  SandboxSettings sandbox;
  bool project_trusted = false;
  std::vector<IgnoredSetting> ignored;
  // The "hooks" blocks of the files, in order (an untrusted project's
  // committed file adds none: it is listed in `ignored`), and the events
  // named there that this version does not run.
  Hooks hooks;
  std::vector<std::string> unsupported_hooks;
};

// A file that does not exist adds nothing. A file that cannot be read, is not
// JSON, or holds a malformed block or rule is an error naming the file and
// the rule: a rule the user wrote is never dropped silently.
Result<Effective> load_permissions(const std::filesystem::path& home,
                                   const std::filesystem::path& project, const Flags& flags = {});

// Where a rule granted "for this project" is written: the project's own,
// uncommitted settings (<project>/.ava/settings.local.json).
std::filesystem::path project_rules_file(const std::filesystem::path& project);

// Adds `rule` to the `permissions.<list>` of the project's local settings,
// keeping everything else in the file; a rule already there is not added
// twice. Read-modify-write under an exclusive lock, replaced atomically.
Result<void> add_project_rule(const std::filesystem::path& project, Verdict list,
                              const std::string& rule);

}  // namespace ava::policy
