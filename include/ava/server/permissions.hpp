#pragma once

#include <filesystem>
#include <optional>

#include "ava/agent/agent.hpp"
#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/policy/settings.hpp"

// A conversation's permission options from the settings files and flags
// (docs/permissions.md), for the API server's conversations and `ava -p`.
namespace ava::server {

// What applies where neither the settings nor the flags say: the API
// server's conversations ask and run bash unsandboxed; `ava -p` asks for the
// workspace-write sandbox and `auto` inside it (auto_inside_sandbox).
struct PermissionDefaults {
  proc::SandboxMode sandbox = proc::SandboxMode::off;
  bool auto_inside_sandbox = false;
  bool can_ask = true;
};

struct ConversationPermissions {
  agent::PermissionOptions options;
  policy::Effective effective;  // the rules and the files they came from
};

// A malformed settings file is an error naming it and the rule; nothing is
// dropped silently.
Result<ConversationPermissions> load_conversation_permissions(const base::Home& home,
                                                              const std::filesystem::path& project,
                                                              const policy::Flags& flags,
                                                              const PermissionDefaults& defaults);

}  // namespace ava::server
