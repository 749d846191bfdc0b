#pragma once

#include <filesystem>
#include <functional>
#include <memory>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/agent/agent.hpp"
#include "ava/base/home.hpp"
#include "ava/capabilities/mcp_hub.hpp"
#include "ava/llm/settings.hpp"
#include "ava/server/permissions.hpp"
#include "cli/prompt_run.hpp"

namespace ava::cli {

// An agent that runs in this process (`ava -p`, `ava chat` without a
// backend): its home, settings, folder, MCP connections and log, built from
// the same flags for both. Destroying it closes the agent, then the MCP
// connections.
struct LocalAgent {
  explicit LocalAgent(base::Home home_) : home(std::move(home_)) {}
  LocalAgent(const LocalAgent&) = delete;
  LocalAgent& operator=(const LocalAgent&) = delete;
  ~LocalAgent();

  base::Home home;
  std::shared_ptr<const llm::Settings> settings;
  std::filesystem::path cwd;
  bool existing = false;  // a log continued (--session, --continue, --resume)
  boost::asio::io_context io;
  std::shared_ptr<capabilities::McpHub> hub;
  server::ConversationPermissions permissions;
  std::unique_ptr<agent::Agent> agent;
};

// Adjusts an agent's options just before it is created.
using AgentCustomizer = std::function<Result<void>(agent::AgentOptions&, bool existing)>;

struct LocalAgentOptions {
  server::PermissionDefaults permission_defaults;
  // Runs on the options just before the agent is created (-p's recorder
  // wraps the provider factory); a failure is a usage error.
  AgentCustomizer customize;
  // MCP servers of this conversation only (an editor's, given in ACP's
  // session/new), offered in its folder beside the configured ones; a name
  // that is configured already is a usage error.
  std::vector<capabilities::McpServerEntry> session_mcp_servers;
};

// Why a setup failed, and whether it is the user's usage (exit 2): the
// settings, folder, session or agent options given do not work. A home that
// cannot be used, or a session a running backend owns, is not.
struct SetupFailure {
  Error error;
  bool usage = true;
};

std::expected<std::unique_ptr<LocalAgent>, SetupFailure> make_local_agent(
    const PromptFlags& flags, const LocalAgentOptions& options);

// The agent's folder: --cwd, else this one, made absolute and canonical;
// not_found when it is no directory.
Result<std::filesystem::path> working_folder(const PromptFlags& flags);

// Runs the io context until `task` is done (other work on it, such as MCP
// sessions reading, goes on meanwhile and after).
void run_until_done(boost::asio::io_context& io, boost::asio::awaitable<void> task);

}  // namespace ava::cli
