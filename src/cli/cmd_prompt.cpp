// `ava -p PROMPT`: one agent, in this process, for one prompt.

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/agent/prompt.hpp"
#include "ava/base/clock.hpp"
#include "ava/base/version.hpp"
#include "ava/llm/catalog.hpp"
#include "ava/recording/recorder.hpp"
#include "ava/server/providers.hpp"
#include "cli/agent_setup.hpp"
#include "cli/commands.hpp"
#include "cli/prompt_output.hpp"
#include "cli/prompt_run.hpp"

namespace ava::cli {
namespace {

namespace asio = boost::asio;

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

// A flag given where it does nothing is refused rather than ignored: the
// person meant something by it. -p's output flags need -p; the agent's
// options need -p or a conversation to continue (-c, --session); the
// server's need the server. (--mcp-wait is left out: AVA_MCP_WAIT_MS in the
// environment sets it for every run.)
void refuse_inapplicable(const CLI::App& cli, bool print, bool chat) {
  auto given = [&](const char* name) { return cli.count(name) > 0; };
  for (const char* name :
       {"--output-format", "--verbose", "--record", "--include-partial-messages"}) {
    if (given(name) && !print) {
      throw CLI::ValidationError(name, "applies to -p only (ava -p \"what to do\" ...)");
    }
  }
  for (const char* name : {"--model", "--provider", "--cwd", "--max-steps", "--system-prompt",
                           "--append-system-prompt", "--no-mcp", "--permission-mode",
                           "--allowed-tools", "--disallowed-tools", "--sandbox"}) {
    if (given(name) && !print && !chat) {
      throw CLI::ValidationError(
          name,
          "applies to -p, ava chat and ava -c; the server takes its settings from "
          "settings.json");
    }
  }
  for (const char* name : {"--serve", "--port", "--no-open"}) {
    if (given(name) && (print || chat)) {
      throw CLI::ValidationError(name, print ? "does not apply to -p" : "does not apply to -c");
    }
  }
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

  // -p never waits for a person: a call that would ask is refused. Where
  // neither the settings nor the flags choose, it runs in `auto` inside the
  // workspace-write sandbox, or, where the kernel has no Landlock, in
  // `accept-edits`, with commands refused.
  std::shared_ptr<recording::Recorder> recorder;
  LocalAgentOptions setup{.permission_defaults = {.sandbox = proc::SandboxMode::workspace_write,
                                                  .auto_inside_sandbox = true,
                                                  .can_ask = false},
                          .customize = {}};
  if (!flags.record.empty()) {
    setup.customize = [&](agent::AgentOptions& options, bool existing) -> Result<void> {
      if (existing) {
        return fail(ErrorCode::invalid_argument,
                    "--record starts a new session: it cannot continue one (--session, "
                    "--continue)");
      }
      AVA_TRY(recorder, recording::Recorder::create(flags.record,
                                                    {.ava_version = std::string(base::version()),
                                                     .cwd = options.cwd.string(),
                                                     .prompt = *prompt,
                                                     .max_steps = flags.max_steps,
                                                     .created_ms = base::unix_ms_now()}));
      options.provider_factory =
          server::recording_provider_factory(recorder, std::move(options.provider_factory));
      return {};
    };
  }
  auto local = make_local_agent(flags, setup);
  if (!local) {
    if (local.error().usage) return usage_error(command_name, local.error().error);
    return std::unexpected(std::move(local.error().error));
  }
  auto& io = (*local)->io;
  auto& agent = (*local)->agent;
  const auto& settings = (*local)->settings;
  if ((*local)->permissions.options.sandbox.mode != proc::SandboxMode::off &&
      !proc::sandbox_support().filesystem()) {
    std::fprintf(stderr,
                 "ava: no sandbox here (%s); running in accept-edits mode, so commands that "
                 "need approval are refused (docs/permissions.md)\n",
                 proc::sandbox_support().describe().c_str());
  }

  PromptOutput output(format, flags.verbose, flags.include_partial_messages);
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
    co_await (*local)->hub->close();
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
  cli.add_flag("--include-partial-messages", flags->include_partial_messages,
               "With --output-format stream-json: also the text as it streams (stream_event "
               "lines)");
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
    const bool print = cli.count("-p") > 0;
    const bool chat = !print && (flags->continue_latest || !flags->session.empty());
    refuse_inapplicable(cli, print, chat);
    if (print && flags->include_partial_messages && flags->output_format != "stream-json") {
      throw CLI::ValidationError("--include-partial-messages",
                                 "applies to --output-format stream-json only");
    }
    if (!print) {
      if (!flags->words.empty()) {
        throw CLI::ValidationError("prompt", "a prompt needs -p (ava -p \"what to do\")");
      }
      // `ava -c` / `ava --session ID` alone: the conversation goes on in chat.
      if (chat) {
        context.ran = true;
        finish(context, CommandName{"chat"}, run_chat(*flags));
      }
      return;
    }
    context.ran = true;
    finish(context, command_name, run_prompt(*flags));
  });
}

}  // namespace ava::cli
