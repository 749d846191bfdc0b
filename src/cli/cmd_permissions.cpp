// `ava permissions`: the effective permission rules for a folder, each with
// the file (or flag) it came from, and the mode (docs/permissions.md).

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ava/base/home.hpp"
#include "ava/policy/settings.hpp"
#include "ava/proc/sandbox.hpp"
#include "cli/commands.hpp"

namespace ava::cli {
namespace {

namespace fs = std::filesystem;

constexpr CommandName command_name{.name = "permissions"};

struct PermissionFlags {
  std::string cwd;
  std::string mode;
  std::vector<std::string> allowed;
  std::vector<std::string> disallowed;
  std::string sandbox;
  bool json = false;
};

Result<int> show(const PermissionFlags& flags) {
  AVA_TRY(auto home, base::Home::resolve());
  std::error_code ec;
  const fs::path folder =
      fs::weakly_canonical(flags.cwd.empty() ? fs::current_path(ec) : fs::path(flags.cwd), ec);
  policy::Flags given{
      .mode = std::nullopt, .allowed = flags.allowed, .disallowed = flags.disallowed};
  if (!flags.mode.empty()) {
    AVA_TRY(given.mode, policy::parse_mode(flags.mode));
  }
  if (!flags.sandbox.empty()) given.sandbox = flags.sandbox;
  AVA_TRY(const auto effective, policy::load_permissions(home.root(), folder, given));
  const std::string mode(policy::to_string(effective.rules.mode));
  if (flags.json) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& listed : effective.listed) {
      rules.push_back({{"list", policy::to_string(listed.list)},
                       {"rule", listed.rule.text},
                       {"source", listed.source}});
    }
    nlohmann::json ignored = nlohmann::json::array();
    for (const auto& item : effective.ignored) {
      ignored.push_back({{"setting", item.setting}, {"source", item.source}});
    }
    nlohmann::json hooks = nlohmann::json::array();
    for (const auto& hook : effective.hooks.commands) {
      hooks.push_back({{"event", policy::to_string(hook.event)},
                       {"matcher", hook.matcher},
                       {"command", hook.command},
                       {"timeoutMs", hook.timeout.count()},
                       {"source", hook.source}});
    }
    const auto& sandbox = effective.sandbox;
    const nlohmann::json out{
        {"project", folder.string()},
        {"hooks", std::move(hooks)},
        {"unsupportedHooks", effective.unsupported_hooks},
        {"projectTrusted", effective.project_trusted},
        {"ignored", std::move(ignored)},
        {"mode", mode},
        {"modeSource", effective.mode_source},
        {"rules", std::move(rules)},
        {"sandbox",
         {{"mode", sandbox.mode ? nlohmann::json(*sandbox.mode) : nlohmann::json()},
          {"source", sandbox.source},
          {"network", sandbox.network.value_or(false)},
          {"writableRoots", sandbox.writable_roots},
          {"landlockAbi", proc::sandbox_support().landlock_abi},
          {"support", proc::sandbox_support().describe()}}}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("Permissions for %s\nMode: %s (%s)\n", folder.c_str(), mode.c_str(),
              effective.mode_source.c_str());
  const auto& sandbox = effective.sandbox;
  std::printf("Sandbox: %s\nKernel: %s\n",
              sandbox.mode ? fmt::format("{} ({}){}", *sandbox.mode, sandbox.source,
                                         sandbox.network.value_or(false) ? ", network on" : "")
                                 .c_str()
                           : "not set (ava -p: workspace-write; the web UI and desktop: off)",
              proc::sandbox_support().describe().c_str());
  if (effective.listed.empty()) std::puts("No rules: the mode decides every call.");
  for (const auto& hook : effective.hooks.commands) {
    std::fputs(fmt::format("Hook {}{}: {}  ({})\n", policy::to_string(hook.event),
                           hook.matcher.empty() ? "" : " [" + hook.matcher + "]", hook.command,
                           hook.source)
                   .c_str(),
               stdout);
  }
  for (const auto& name : effective.unsupported_hooks) {
    std::fputs(fmt::format("Hook {}: not run by this version\n", name).c_str(), stdout);
  }
  if (!effective.ignored.empty()) {
    std::puts("Ignored (the project is not in trustedProjects of your settings.json):");
    for (const auto& item : effective.ignored) {
      std::fputs(fmt::format("  {}  ({})\n", item.setting, item.source).c_str(), stdout);
    }
  }
  // Deny first: the order in which they are checked.
  for (const auto list : {policy::Verdict::deny, policy::Verdict::ask, policy::Verdict::allow}) {
    for (const auto& listed : effective.listed) {
      if (listed.list != list) continue;
      std::fputs(fmt::format("  {:<5}  {}  ({})\n", policy::to_string(list), listed.rule.text,
                             listed.source)
                     .c_str(),
                 stdout);
    }
  }
  return 0;
}

}  // namespace

void add_permissions_commands(CLI::App& cli, CliContext& context) {
  auto flags = std::make_shared<PermissionFlags>();
  auto* command = cli.add_subcommand(
      "permissions", "Show the permission mode and rules that apply in a folder, and their files");
  command->add_option("--cwd", flags->cwd, "The project folder (default: this one)");
  command->add_option("--permission-mode", flags->mode,
                      "As if given: ask, accept-edits, plan, auto");
  command->add_option("--allowed-tools", flags->allowed, "As if given: rules to allow");
  command->add_option("--disallowed-tools", flags->disallowed, "As if given: rules to deny");
  command->add_option("--sandbox", flags->sandbox, "As if given: read-only, workspace-write, off");
  command->add_flag("--json", flags->json, "Print JSON");
  command->callback([&context, flags] { finish(context, command_name, show(*flags)); });
}

}  // namespace ava::cli
