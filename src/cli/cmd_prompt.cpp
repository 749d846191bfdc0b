// `ava -p PROMPT`: one agent, in this process, for one prompt.

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/agent/prompt.hpp"
#include "ava/base/clock.hpp"
#include "ava/base/id.hpp"
#include "ava/base/version.hpp"
#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_hub.hpp"
#include "ava/capabilities/mcp_tool_source.hpp"
#include "ava/capabilities/skill_availability.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/machine/ownership.hpp"
#include "ava/proc/environment.hpp"
#include "ava/recording/recorder.hpp"
#include "ava/server/permissions.hpp"
#include "ava/server/providers.hpp"
#include "cli/commands.hpp"
#include "cli/prompt_output.hpp"
#include "cli/prompt_run.hpp"
#include "cli/session_paths.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

constexpr std::size_t max_stdin_prompt = std::size_t{8} * 1024 * 1024;

// Failures print as "ava: <message>".
constexpr CommandName command_name{};

Result<std::string> read_prompt(const PromptFlags& flags) {
  std::string prompt = flags.prompt;
  for (const auto& word : flags.words) prompt += (prompt.empty() ? "" : " ") + word;
  if (prompt.empty() && ::isatty(STDIN_FILENO) == 0) {
    std::string input(std::istreambuf_iterator<char>(std::cin), {});
    if (input.size() > max_stdin_prompt) {
      return fail(ErrorCode::limit_exceeded, "the prompt on stdin is larger than 8 MiB");
    }
    prompt = std::move(input);
  }
  if (prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
    return fail(ErrorCode::invalid_argument,
                "ava -p needs a prompt: ava -p \"what to do\", or pipe it on stdin");
  }
  return prompt;
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

// Runs the io context until `task` is done (other work on it, such as MCP
// sessions reading, goes on meanwhile and after).
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

// The tools of the MCP servers enabled for `cwd`, after the built-in ones.
// A slow server is waited for at most --mcp-wait; one that does not answer
// in time offers the tools it listed last time (calls wait for it) or none,
// and a broken one is reported and left out: neither stops the turn. A
// server's later tools/list_changed reaches the agent at its next step.
std::shared_ptr<tool::ToolSource> prompt_tools(asio::io_context& io,
                                               const std::shared_ptr<capabilities::McpHub>& hub,
                                               const fs::path& cwd, const PromptFlags& flags) {
  if (flags.no_mcp) return nullptr;
  run_until_done(io, hub->wait_listed(cwd, std::chrono::milliseconds(flags.mcp_wait_ms)));
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

// -p never waits for a person: a call that would ask is refused. Where
// neither the settings nor the flags choose, it runs in `auto` inside the
// workspace-write sandbox, or, where the kernel has no Landlock, in
// `accept-edits`, with commands refused.
Result<server::ConversationPermissions> prompt_permissions(const PromptFlags& flags,
                                                           const base::Home& home,
                                                           const fs::path& cwd) {
  policy::Flags given{.mode = std::nullopt,
                      .allowed = split_rules(flags.allowed_tools),
                      .disallowed = split_rules(flags.disallowed_tools),
                      .sandbox = std::nullopt};
  if (!flags.permission_mode.empty()) {
    AVA_TRY(given.mode, policy::parse_mode(flags.permission_mode));
  }
  if (!flags.sandbox.empty()) given.sandbox = flags.sandbox;
  return server::load_conversation_permissions(home, cwd, given,
                                               {.sandbox = proc::SandboxMode::workspace_write,
                                                .auto_inside_sandbox = true,
                                                .can_ask = false});
}

}  // namespace

// What the run cannot start without (the prompt, the settings, the working
// folder, the session to continue, the agent) is a usage error (exit 2);
// failures after that, and a home that cannot be used, exit 1.
Result<int> run_prompt(const PromptFlags& flags) {
  const auto started = std::chrono::steady_clock::now();
  auto format = OutputFormat::text;
  if (flags.output_format == "json") format = OutputFormat::json;
  if (flags.output_format == "stream-json") format = OutputFormat::stream_json;

  auto prompt = read_prompt(flags);
  if (!prompt) return usage_error(command_name, prompt.error());
  AVA_TRY(auto home, base::Home::resolve());
  auto loaded = llm::load_settings(home);
  if (!loaded) return usage_error(command_name, loaded.error());
  auto settings = std::make_shared<const llm::Settings>(std::move(*loaded));
  proc::set_kept_variables(settings->child_environment_keep);

  std::error_code ec;
  fs::path cwd = flags.cwd.empty() ? fs::current_path(ec) : fs::path(flags.cwd);
  cwd = fs::weakly_canonical(fs::absolute(cwd, ec), ec);
  if (!fs::is_directory(cwd, ec)) {
    return usage_error(command_name, {ErrorCode::not_found, "no such directory: " + cwd.string()});
  }

  auto permissions = prompt_permissions(flags, home, cwd);
  if (!permissions) return usage_error(command_name, permissions.error());
  if (permissions->options.sandbox.mode != proc::SandboxMode::off &&
      !proc::sandbox_support().filesystem()) {
    std::fprintf(stderr,
                 "ava: no sandbox here (%s); running in accept-edits mode, so commands that "
                 "need approval are refused (docs/permissions.md)\n",
                 proc::sandbox_support().describe().c_str());
  }

  bool existing = false;
  auto log = choose_log(flags, home, cwd, existing);
  if (!log) return usage_error(command_name, log.error());
  if (existing) {
    AVA_TRY_VOID(check_not_owned(home, *log));
  }

  // The capabilities store is read once: the MCP servers and the skill
  // switches (each SQLite open in WAL mode creates and removes two files).
  capabilities::McpHub::Options hub_options{.executor = {}, .home = home, .default_cwd = cwd};
  std::set<std::string> disabled_skills;
  if (fs::exists(capabilities::CapabilitiesStore::file_of(home), ec)) {
    if (auto store = capabilities::CapabilitiesStore::open(home)) {
      if (auto servers = store->servers()) hub_options.configured = std::move(*servers);
      disabled_skills = capabilities::disabled_skills_for(*store, cwd);
    } else {
      disabled_skills = capabilities::disabled_skills_for(home, cwd);  // says why on stderr
    }
  }

  asio::io_context io;
  // This process owns its MCP connections; they close after the agent.
  hub_options.executor = io.get_executor();
  auto hub = capabilities::McpHub::create(std::move(hub_options));
  struct HubCloser {
    asio::io_context& io;
    capabilities::McpHub& hub;
    ~HubCloser() {
      io.restart();
      run_until_done(io, hub.close());
    }
  } hub_closer{io, *hub};
  agent::AgentOptions options;
  options.tool_source = prompt_tools(io, hub, cwd, flags);
  options.provider_factory =
      server::make_provider_factory(io.get_executor(), [settings] { return settings; });
  std::shared_ptr<recording::Recorder> recorder;
  if (!flags.record.empty()) {
    if (existing) {
      return usage_error(command_name, {ErrorCode::invalid_argument,
                                        "--record starts a new session: it cannot continue one "
                                        "(--session, --continue)"});
    }
    auto created =
        recording::Recorder::create(flags.record, {.ava_version = std::string(base::version()),
                                                   .cwd = cwd.string(),
                                                   .prompt = *prompt,
                                                   .max_steps = flags.max_steps,
                                                   .created_ms = base::unix_ms_now()});
    if (!created) return usage_error(command_name, created.error());
    recorder = std::move(*created);
    options.provider_factory =
        server::recording_provider_factory(recorder, std::move(options.provider_factory));
  }
  options.model = {.provider = flags.provider, .model = flags.model};
  options.cwd = cwd;
  options.system_prompt = flags.system_prompt;
  options.append_system_prompt = flags.append_system_prompt;
  options.skill_roots = capabilities::skill_roots(home, cwd);
  options.home = home.root();
  options.disabled_skills = std::move(disabled_skills);
  options.memory = flags.memory;
  options.subagents = flags.subagents;
  if (flags.only_tools) {
    // A narrower tool set (ava memory dream): the named built-in tools only.
    tool::ToolRegistry tools;
    for (const auto& name : *flags.only_tools) {
      if (name == "read") tools.add(tool::make_read_tool());
      if (name == "write") tools.add(tool::make_write_tool());
      if (name == "edit") tools.add(tool::make_edit_tool());
      if (name == "bash") tools.add(tool::make_bash_tool());
    }
    options.tools = std::move(tools);
  }
  if (flags.max_steps > 0) options.max_steps = flags.max_steps;
  options.permissions = std::move(permissions->options);

  auto created = existing ? agent::Agent::create_at(io.get_executor(), *log, std::move(options))
                          : agent::Agent::create(io.get_executor(), *log, std::move(options));
  if (!created) return usage_error(command_name, created.error());
  std::unique_ptr<agent::Agent> agent = std::move(*created);
  // A mode given on the command line outranks one an earlier run recorded.
  if (!flags.permission_mode.empty()) {
    if (auto recorded = agent->set_permission_mode(permissions->effective.rules.mode); !recorded) {
      return std::unexpected(recorded.error());
    }
  }

  PromptOutput output(format, flags.verbose);
  std::vector<std::string> tool_names;
  for (const auto& spec : agent->next_request().tools) tool_names.push_back(spec.name);
  output.init(*agent, tool_names);
  agent->subscribe([&output](const session::Event& event) { output.on_event(event); });
  if (recorder) {
    recorder->set_session_id(agent->session_id());
    agent->subscribe([recorder](const session::Event& event) { recorder->on_event(event); });
  }
  agent->subscribe_live([&output](const agent::LiveEvent& event) { output.on_live(event); });

  // Ctrl-C aborts the turn (calls paired, log synced); a second one quits.
  asio::signal_set signals(io, SIGINT, SIGTERM);
  int interrupts = 0;
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& error, int) {
        if (error) return;
        if (++interrupts > 1) std::_Exit(130);
        std::fputs("ava: aborting the turn (Ctrl-C again to quit at once)\n", stderr);
        (void)agent->abort();
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);

  std::optional<Error> failure;
  auto run = [&]() -> asio::awaitable<void> {
    if (auto receipt = agent->followup(*prompt); !receipt) {
      failure = receipt.error();
    } else {
      (void)agent->resume();  // a paused session given a prompt runs
      co_await agent->wait_idle();
    }
    auto closed = co_await agent->close();
    if (!closed && !failure) failure = closed.error();
    co_await hub->close();
    signals.cancel();
  };
  asio::co_spawn(io, run(), [&](const std::exception_ptr& error) {
    if (error) std::rethrow_exception(error);
  });
  io.run();

  if (failure) return std::unexpected(std::move(*failure));
  if (recorder) {
    if (auto recorded = recorder->finish(); !recorded) {
      std::fprintf(stderr, "ava: the recording in %s is incomplete: %s\n", flags.record.c_str(),
                   recorded.error().message.c_str());
    }
  }
  const auto duration = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  return output.finish(*agent, llm::model_info(agent->status().model, settings.get()),
                       duration.count());
}

void add_prompt_options(CLI::App& cli, CliContext& context) {
  auto flags = std::make_shared<PromptFlags>();
  cli.add_option("-p,--print", flags->prompt,
                 "Run one prompt non-interactively and print the answer (prompt here, after the "
                 "options, or on stdin)")
      ->expected(0, 1);
  cli.add_option("prompt", flags->words, "The prompt, for -p");
  cli.add_option("--model", flags->model, "Model for -p (default: settings, then the provider's)");
  cli.add_option("--provider", flags->provider,
                 "anthropic, openai, openai-responses, ollama, lmstudio, llamacpp, mock, or one "
                 "from settings.json");
  cli.add_option("--cwd", flags->cwd, "Working directory of the agent (default: this one)");
  auto* session = cli.add_option("--session", flags->session, "Continue a session: id or log path");
  cli.add_flag("-c,--continue", flags->continue_latest,
               "Continue the latest session started in this directory")
      ->excludes(session);
  cli.add_option("--max-steps", flags->max_steps, "Provider steps allowed per turn")
      ->check(CLI::Range(1, 100000));
  cli.add_option("--system-prompt", flags->system_prompt, "Replace the system prompt");
  cli.add_option("--append-system-prompt", flags->append_system_prompt,
                 "Text added to the end of the system prompt");
  cli.add_option("--output-format", flags->output_format, "text, json or stream-json")
      ->check(CLI::IsMember({"text", "json", "stream-json"}))
      ->capture_default_str();
  cli.add_flag("--verbose", flags->verbose, "Print tool activity on stderr");
  cli.add_option("--mcp-wait", flags->mcp_wait_ms,
                 "Milliseconds -p waits for MCP servers to list their tools (then goes on)")
      ->envname("AVA_MCP_WAIT_MS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cli.add_flag("--no-mcp", flags->no_mcp, "Offer no MCP server tools to -p");
  cli.add_option("--permission-mode", flags->permission_mode,
                 "ask, accept-edits, plan or auto (default: settings, else auto inside the "
                 "sandbox); -p never waits for approval: what would ask is refused");
  cli.add_option("--allowed-tools,--allowedTools", flags->allowed_tools,
                 "Rules to allow, e.g. 'bash(npm test:*)' 'edit(src/**)' (comma-separated or "
                 "repeated)")
      ->allow_extra_args(false);
  cli.add_option("--disallowed-tools,--disallowedTools", flags->disallowed_tools,
                 "Rules to deny, e.g. 'bash(git push*)' (comma-separated or repeated)")
      ->allow_extra_args(false);
  cli.add_option("--record", flags->record,
                 "Record the provider exchanges and tool responses in DIR (new or empty) for "
                 "`ava replay DIR` (docs/eval.md)");
  cli.add_option("--sandbox", flags->sandbox,
                 "Where bash runs: read-only, workspace-write (default for -p) or off")
      ->check(CLI::IsMember({"read-only", "workspace-write", "off"}));

  cli.callback([&cli, &context, flags] {
    if (!cli.get_subcommands().empty()) return;
    if (cli.count("-p") == 0) {
      if (!flags->words.empty()) {
        throw CLI::ValidationError("prompt", "a prompt needs -p (ava -p \"what to do\")");
      }
      return;
    }
    context.ran = true;
    finish(context, command_name, run_prompt(*flags));
  });
}

}  // namespace ava::cli
