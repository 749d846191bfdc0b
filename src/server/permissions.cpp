#include "ava/server/permissions.hpp"

#include <cstdlib>

namespace ava::server {

namespace fs = std::filesystem;

Result<ConversationPermissions> load_conversation_permissions(const base::Home& home,
                                                              const fs::path& project,
                                                              const policy::Flags& flags,
                                                              const PermissionDefaults& defaults) {
  AVA_TRY(auto effective, policy::load_permissions(home.root(), project, flags));
  agent::PermissionOptions options{.rules = effective.rules,
                                   .project = project,
                                   .home = {},
                                   .can_ask = defaults.can_ask,
                                   .sandbox = {},
                                   .hooks = effective.hooks,
                                   .project_trusted = effective.project_trusted};
  if (const char* user_home = std::getenv("HOME"); user_home != nullptr) options.home = user_home;

  proc::Sandbox& sandbox = options.sandbox;
  sandbox.mode = defaults.sandbox;
  if (effective.sandbox.mode) {
    AVA_TRY(sandbox.mode, proc::parse_sandbox_mode(*effective.sandbox.mode));
  }
  sandbox.network = effective.sandbox.network.value_or(false);
  sandbox.writable_roots.push_back(project);
  for (const auto& root : effective.sandbox.writable_roots)
    sandbox.writable_roots.emplace_back(root);

  // `auto` by default only where the sandbox is on and the kernel gives it:
  // a user is never broader than they chose.
  const bool sandboxed =
      sandbox.mode != proc::SandboxMode::off && proc::sandbox_support().filesystem();
  if (effective.mode_source == "default" && defaults.auto_inside_sandbox) {
    options.rules.mode = sandboxed ? policy::Mode::auto_ : policy::Mode::accept_edits;
    effective.rules.mode = options.rules.mode;
    effective.mode_source = sandboxed ? "the ava -p default (auto inside the sandbox)"
                                      : "the ava -p default without a sandbox";
  }
  return ConversationPermissions{.options = std::move(options), .effective = std::move(effective)};
}

}  // namespace ava::server
