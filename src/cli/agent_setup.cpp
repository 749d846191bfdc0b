// One agent in this process, as `ava -p` and `ava chat` run it.

#include "cli/agent_setup.hpp"

#include <cstdio>
#include <set>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>

#include "ava/base/id.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_tool_source.hpp"
#include "ava/capabilities/skill_availability.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/llm/model_list.hpp"
#include "ava/machine/ownership.hpp"
#include "ava/proc/environment.hpp"
#include "ava/server/providers.hpp"
#include "cli/progress_line.hpp"
#include "cli/session_paths.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

std::unexpected<SetupFailure> usage(Error error) {
  return std::unexpected(SetupFailure{std::move(error), true});
}
std::unexpected<SetupFailure> failed(Error error) {
  return std::unexpected(SetupFailure{std::move(error), false});
}

// Which log this run writes: a new one, --session, or --continue.
Result<fs::path> choose_log(const PromptFlags& flags, const base::Home& home, const fs::path& cwd,
                            bool& existing) {
  existing = !flags.session.empty() || flags.continue_latest;
  if (!flags.session.empty()) return resolve_session(home, flags.session);
  if (flags.continue_latest) return latest_session_for(home, cwd);
  AVA_TRY(auto folder, home.ensure_dir("sessions"));
  return folder / (base::new_id() + ".jsonl.zst");
}

// An independent CLI must not resume a session that a running backend owns.
Result<void> check_not_owned(const base::Home& home, const fs::path& log) {
  if (!in_home_sessions(home, log)) return {};
  AVA_TRY(auto owner, machine::probe_owner(home));
  if (!owner) return {};
  return fail(ErrorCode::conflict,
              fmt::format("session {} belongs to the Ava server running on this home (pid {}); "
                          "send input through it, or stop it first (ava backend stop)",
                          log.filename().string(), owner->pid));
}

// The tools of the MCP servers enabled for `cwd`, after the built-in ones.
// A slow server is waited for at most --mcp-wait; one that does not answer
// in time offers the tools it listed last time (calls wait for it) or none,
// and a broken one is reported and left out: neither stops the turn. A
// server's later tools/list_changed reaches the agent at its next step.
std::shared_ptr<tool::ToolSource> local_tools(asio::io_context& io,
                                              const std::shared_ptr<capabilities::McpHub>& hub,
                                              const fs::path& cwd, const PromptFlags& flags) {
  if (flags.no_mcp) return nullptr;
  {
    ProgressLine progress("starting MCP servers");
    run_until_done(io, hub->wait_listed(cwd, std::chrono::milliseconds(flags.mcp_wait_ms)));
  }
  return capabilities::mcp_tool_source(
      hub, cwd, [](const std::string& note) { std::fprintf(stderr, "ava: %s\n", note.c_str()); });
}

// "a,b(c, d)" -> "a", "b(c, d)": rules are separated by commas outside
// parentheses, as Claude Code's --allowedTools takes them.
std::vector<std::string> split_rules(const std::vector<std::string>& given) {
  std::vector<std::string> rules;
  for (const auto& text : given) {
    std::string current;
    int depth = 0;
    for (const char c : text) {
      if (c == '(') ++depth;
      if (c == ')' && depth > 0) --depth;
      if (c == ',' && depth == 0) {
        if (current.find_first_not_of(' ') != std::string::npos) rules.push_back(current);
        current.clear();
        continue;
      }
      if (c == ' ' && current.empty()) continue;
      current.push_back(c);
    }
    if (current.find_first_not_of(' ') != std::string::npos) rules.push_back(current);
  }
  return rules;
}

Result<server::ConversationPermissions> local_permissions(
    const PromptFlags& flags, const base::Home& home, const fs::path& cwd,
    const server::PermissionDefaults& defaults) {
  policy::Flags given{.mode = std::nullopt,
                      .allowed = split_rules(flags.allowed_tools),
                      .disallowed = split_rules(flags.disallowed_tools),
                      .sandbox = std::nullopt};
  if (!flags.permission_mode.empty()) {
    AVA_TRY(given.mode, policy::parse_mode(flags.permission_mode));
  }
  if (!flags.sandbox.empty()) given.sandbox = flags.sandbox;
  return server::load_conversation_permissions(home, cwd, given, defaults);
}

// The skill switches the capabilities store keeps, and its MCP servers.
std::set<std::string> read_capabilities(const base::Home& home, const fs::path& cwd,
                                        capabilities::McpHub::Options& hub_options) {
  // Read once: each SQLite open in WAL mode creates and removes two files.
  std::error_code ec;
  if (!fs::exists(capabilities::CapabilitiesStore::file_of(home), ec)) return {};
  auto store = capabilities::CapabilitiesStore::open(home);
  if (!store) return capabilities::disabled_skills_for(home, cwd);  // says why on stderr
  if (auto servers = store->servers()) hub_options.configured = std::move(*servers);
  return capabilities::disabled_skills_for(*store, cwd);
}

// Nothing configured and no --provider: a local model server that is up
// and serves a model is used, as a newcomer with Ollama or LM Studio
// running expects (docs/providers.md), with its first model unless --model
// names one. Said on stderr, since no setting chose it.
std::optional<llm::ProviderModels> detected_local_model(asio::io_context& io,
                                                        const llm::Settings& settings,
                                                        const PromptFlags& flags) {
  if (!flags.provider.empty() || !llm::default_provider_name(settings).empty()) return {};
  std::optional<std::vector<llm::ProviderModels>> answers;
  asio::co_spawn(io, llm::query_local_servers(io.get_executor(), settings),
                 [&answers](const std::exception_ptr&, std::vector<llm::ProviderModels> found) {
                   answers = std::move(found);
                 });
  // Other work on the context (MCP sessions reading) goes on meanwhile.
  while (!answers && io.run_one() > 0) {
  }
  io.restart();
  const auto* found = answers ? llm::first_serving(*answers) : nullptr;
  if (found == nullptr) return {};
  std::fprintf(stderr, "ava: no provider is configured; using %s at %s with %s\n",
               found->source.provider.c_str(), found->source.base_url.c_str(),
               (flags.model.empty() ? found->models.front() : flags.model).c_str());
  return *found;
}

tool::ToolRegistry only_tools(const std::vector<std::string>& names) {
  tool::ToolRegistry tools;
  for (const auto& name : names) {
    if (name == "read") tools.add(tool::make_read_tool());
    if (name == "write") tools.add(tool::make_write_tool());
    if (name == "edit") tools.add(tool::make_edit_tool());
    if (name == "bash") tools.add(tool::make_bash_tool());
  }
  return tools;
}

}  // namespace

Result<fs::path> working_folder(const PromptFlags& flags) {
  std::error_code ec;
  fs::path cwd = flags.cwd.empty() ? fs::current_path(ec) : fs::path(flags.cwd);
  cwd = fs::weakly_canonical(fs::absolute(cwd, ec), ec);
  if (!fs::is_directory(cwd, ec))
    return fail(ErrorCode::not_found, "no such directory: " + cwd.string());
  return cwd;
}

LocalAgent::~LocalAgent() {
  agent.reset();
  if (!hub) return;
  io.restart();
  run_until_done(io, hub->close());
}

void run_until_done(asio::io_context& io, asio::awaitable<void> task) {
  bool done = false;
  asio::co_spawn(io, std::move(task), [&done](const std::exception_ptr& error) {
    done = true;
    if (error) std::rethrow_exception(error);
  });
  while (!done && io.run_one() > 0) {
  }
  // The context stops itself when its work ran out with the task's last
  // handler; later runs need it restarted.
  io.restart();
}

std::expected<std::unique_ptr<LocalAgent>, SetupFailure> make_local_agent(
    const PromptFlags& flags, const LocalAgentOptions& setup) {
  auto home = base::Home::resolve();
  if (!home) return failed(home.error());
  auto local = std::make_unique<LocalAgent>(std::move(*home));
  auto loaded = llm::load_settings(local->home);
  if (!loaded) return usage(loaded.error());
  local->settings = std::make_shared<const llm::Settings>(std::move(*loaded));
  proc::set_kept_variables(local->settings->child_environment_keep);

  auto folder = working_folder(flags);
  if (!folder) return usage(folder.error());
  const fs::path cwd = *folder;
  local->cwd = cwd;

  auto permissions = local_permissions(flags, local->home, cwd, setup.permission_defaults);
  if (!permissions) return usage(permissions.error());
  local->permissions = std::move(*permissions);

  auto log = choose_log(flags, local->home, cwd, local->existing);
  if (!log) return usage(log.error());
  if (local->existing) {
    if (auto free = check_not_owned(local->home, *log); !free) return failed(free.error());
  }

  capabilities::McpHub::Options hub_options{
      .executor = local->io.get_executor(), .home = local->home, .default_cwd = cwd};
  auto disabled_skills = read_capabilities(local->home, cwd, hub_options);
  if (!setup.session_mcp_servers.empty()) {
    if (!hub_options.configured) hub_options.configured.emplace();
    for (const auto& entry : setup.session_mcp_servers) {
      if (std::ranges::any_of(*hub_options.configured,
                              [&](const auto& known) { return known.name == entry.name; })) {
        return usage({ErrorCode::already_exists,
                      "an MCP server named " + entry.name +
                          " is configured already; give the editor's server another name"});
      }
      hub_options.configured->push_back(entry);
    }
  }
  // This process owns its MCP connections; they close after the agent.
  local->hub = capabilities::McpHub::create(std::move(hub_options));

  agent::AgentOptions options;
  options.tool_source = local_tools(local->io, local->hub, cwd, flags);
  options.model = {.provider = flags.provider, .model = flags.model};
  if (!local->existing) {
    if (auto found = detected_local_model(local->io, *local->settings, flags)) {
      local->settings =
          std::make_shared<const llm::Settings>(llm::using_local_server(*local->settings, *found));
      options.model = {.provider = found->source.provider, .model = flags.model};
    }
  }
  options.provider_factory = server::make_provider_factory(
      local->io.get_executor(), [settings = local->settings] { return settings; });
  options.cwd = cwd;
  options.system_prompt = flags.system_prompt;
  options.append_system_prompt = flags.append_system_prompt;
  options.skill_roots = capabilities::skill_roots(local->home, cwd);
  options.home = local->home.root();
  options.disabled_skills = std::move(disabled_skills);
  options.memory = flags.memory;
  options.subagents = flags.subagents;
  // A narrower tool set (ava memory dream): the named built-in tools only.
  if (flags.only_tools) options.tools = only_tools(*flags.only_tools);
  if (flags.max_steps > 0) options.max_steps = flags.max_steps;
  options.permissions = local->permissions.options;
  if (setup.customize) {
    if (auto customized = setup.customize(options, local->existing); !customized) {
      return usage(customized.error());
    }
  }

  auto created = local->existing
                     ? agent::Agent::create_at(local->io.get_executor(), *log, std::move(options))
                     : agent::Agent::create(local->io.get_executor(), *log, std::move(options));
  if (!created) return usage(created.error());
  local->agent = std::move(*created);
  // A mode given on the command line outranks one an earlier run recorded.
  if (!flags.permission_mode.empty()) {
    auto recorded = local->agent->set_permission_mode(local->permissions.effective.rules.mode);
    if (!recorded) return failed(recorded.error());
  }
  return local;
}

}  // namespace ava::cli
