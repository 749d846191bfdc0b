#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/llm/items.hpp"
#include "ava/llm/provider.hpp"
#include "ava/llm/stream.hpp"
#include "ava/policy/hooks.hpp"
#include "ava/policy/policy.hpp"
#include "ava/proc/sandbox.hpp"
#include "ava/prompts/project_context.hpp"
#include "ava/session/event.hpp"
#include "ava/tool/registry.hpp"
#include "ava/tool/source.hpp"

namespace ava::agent {

// The driver's lifecycle. `pausing` and `aborting` last until the running
// step reaches the point where the request can be honoured; `waiting` is a
// running turn whose next tool call waits for a person's approval.
enum class DriverState { idle, running, waiting, pausing, paused, aborting, closed };
std::string_view to_string(DriverState state);

// Which model answers; empty fields mean "the configured default".
struct ModelChoice {
  std::string provider;
  std::string model;
};

// A provider client bound to one model, with what the agent needs to know
// about that model.
struct ProviderBinding {
  std::unique_ptr<llm::Provider> provider;
  std::string provider_name;
  std::string model;
  std::int64_t context_window = 128'000;
  std::optional<std::int64_t> max_output_tokens;
};

// Makes provider clients: at creation, for a log's recorded model when it is
// reopened, and on every model override. The application owns configuration
// and credentials; the agent only asks.
using ProviderFactory = std::function<Result<ProviderBinding>(const ModelChoice& choice)>;

// Who may run which tool call without asking a person (docs/permissions.md).
// An agent without them runs every call, as an embedder's always has.
struct PermissionOptions {
  policy::RuleSet rules;          // the settings' and flags' mode and rules
  std::filesystem::path project;  // where ./ rules start and "inside the project" ends
  std::filesystem::path home;     // for ~/ rules
  // false when nobody can answer (ava -p, automations): a call that would
  // ask is refused with a message instead, and the turn goes on.
  bool can_ask = true;
  // Where bash runs. A sandbox the kernel cannot give (no Landlock) is
  // never skipped silently: `auto` then behaves as `accept-edits`, so
  // commands ask (or are refused when nobody can answer).
  proc::Sandbox sandbox;
  // Commands run around tool calls and lifecycle points (Claude Code's
  // format; docs/permissions.md), outside the sandbox: they are the user's.
  policy::Hooks hooks;
  // AVA_HOME/settings.json lists the project in trustedProjects: its
  // committed files may widen what runs unasked (settings, and the
  // allowed-tools of its slash commands).
  bool project_trusted = false;
};

struct AgentOptions {
  ProviderFactory provider_factory;
  ModelChoice model;          // create: the model to start with; create_at: an override
  std::filesystem::path cwd;  // create only; a reopened log keeps its recorded cwd
  std::optional<tool::ToolRegistry> tools;  // default: read, write, edit, bash (+ skill)
  // Tools offered after those (MCP servers' tools): taken again at a step
  // boundary whenever the source's generation moved.
  std::shared_ptr<tool::ToolSource> tool_source;
  std::optional<std::string> system_prompt;        // replaces the built prompt entirely
  std::string append_system_prompt;                // added after the built (or replaced) prompt
  std::vector<std::filesystem::path> skill_roots;  // folders of <name>/SKILL.md; see prompt.hpp
  // AVA_HOME: the user's AGENTS.md and slash commands (prompts package);
  // empty: only the project's.
  std::filesystem::path home;
  // Skills the application switched off: left out of the prompt's index and
  // the skill tool, as if they were not on disk.
  std::set<std::string> disabled_skills;
  // Memory notes (prompts/memory.hpp): the `memory` tool and the notes'
  // index in the system prompt, read again at every turn's start. Notes are
  // under AVA_HOME/memory (needs `home`) and <repo>/.ava/memory.
  bool memory = false;
  int max_steps = base::Limits::defaults().max_steps_per_turn;
  double compact_fraction = 0.8;  // compact when a request would exceed this share of the window
  base::Limits limits = base::Limits::defaults();
  std::optional<PermissionOptions> permissions;
  // The `task` tool (subagents, prompts/agents.hpp): each child runs in its
  // own log beside this one, with the tools its definition allows and this
  // agent's permissions (nobody can answer its calls); abort and pause
  // reach it; its usage is counted here too.
  bool subagents = false;
  int max_parallel_subagents = 4;  // `task` calls of one step that run at once
  // Set for a subagent: recorded in its session_start.
  std::string parent_session_id;
  std::string parent_call_id;
};

// A person's answer to an approval request.
struct ApprovalAnswer {
  session::ApprovalDecision decision = session::ApprovalDecision::deny;
  session::ApprovalScope scope = session::ApprovalScope::once;
  // For the conversation or project scope: the allow rule to grant; empty:
  // the request's first suggested rule.
  std::string rule;
  std::string message;  // to the model, with the result (why not, what instead)
};

// Input for followup()/steer(). `input_id` is optional: a client that picks
// its own id (1-128 characters of A-Z a-z 0-9 . _ : -) may resend the same
// input after a lost response and gets the first receipt back instead of a
// second copy, for as long as the log exists.
struct Input {
  std::string text;
  std::vector<llm::ImageBlock> attachments;
  std::string input_id;
};

// What followup()/steer() return once the input event is durable.
struct InputReceipt {
  std::string input_id;
  session::Seq seq = 0;
  bool duplicate = false;  // the id was acknowledged before; nothing was enqueued
};

// Provider-neutral state for UIs and the API's status route.
struct Status {
  DriverState state = DriverState::idle;
  std::string session_id;
  std::string provider;
  std::string model;
  std::string turn_id;  // empty when no turn is open
  int step = 0;
  std::size_t pending_inputs = 0;
  std::string activity;  // "Running bash", "Editing src/x.cpp"; empty when none
  llm::Usage usage;      // totals over the whole session
  session::Seq last_seq = 0;
  std::string last_error;                             // of the last failed turn
  std::vector<session::ApprovalRequested> approvals;  // waiting for a person, in order
  std::string permission_mode;  // the mode calls are checked in; empty without permissions
  std::string sandbox;          // read-only, workspace-write, off, or "unavailable"
  std::vector<std::string> granted_rules;  // allowed for this conversation by a person
  std::string goal;                        // set by /goal; empty when none
  // The log refused a write (a full disk, an I/O error): nothing more is
  // acknowledged until the conversation is reopened, which recovers the log.
  bool log_failed = false;
};

// What the next request is built from, without building it.
struct ContextReport {
  std::size_t messages = 0;
  std::int64_t estimated_tokens = 0;  // system + tools + messages
  std::int64_t context_window = 0;
  std::size_t system_prompt_chars = 0;
  std::size_t tool_schema_chars = 0;
  std::size_t compactions = 0;
  std::vector<std::string> pending_inputs;
  std::vector<std::string> unpaired_calls;
  std::vector<prompts::ContextFile> context_files;  // the AGENTS.md files read, in order
};

// Live, non-durable progress for display: stream deltas, tool activity and
// state changes. History is the durable events; this is only the present.
struct StateChanged {
  DriverState state = DriverState::idle;
};
struct StreamProgress {
  std::string turn_id;
  int step = 0;
  llm::StreamEvent event;
};
struct ToolActivity {
  std::string turn_id;
  std::string call_id;
  std::string tool_name;
  std::string label;  // "Running bash: make test"
  bool finished = false;
};
using LiveEvent = std::variant<StateChanged, StreamProgress, ToolActivity>;

using EventCallback = std::function<void(const session::Event&)>;
using LiveCallback = std::function<void(const LiveEvent&)>;

class AgentCore;

// One conversation: its durable log, its provider client, its tools and the
// single driver that runs its turns. Every method is thread-safe. Work runs
// on the executor given at creation; input and control calls return at once
// (after the input is durable) and the driver picks them up.
class Agent {
 public:
  // A new session whose log is created at `log_path` (it must not exist).
  static Result<std::unique_ptr<Agent>> create(boost::asio::any_io_executor executor,
                                               const std::filesystem::path& log_path,
                                               AgentOptions options);
  // An existing log: recovered if needed, then continued. Acknowledged input
  // that no step claimed is run; a turn paused at a step boundary resumes on
  // resume().
  static Result<std::unique_ptr<Agent>> create_at(boost::asio::any_io_executor executor,
                                                  const std::filesystem::path& log_path,
                                                  AgentOptions options);

  // Aborts running work and closes the log; prefer `co_await close()`, which
  // waits for the driver to pair every tool call first.
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Input for the next turn / for the running turn's next step. Returns once
  // the input is durable in the log. A steer with no turn running starts one.
  Result<InputReceipt> followup(std::string text, std::vector<llm::ImageBlock> attachments = {});
  Result<InputReceipt> steer(std::string text, std::vector<llm::ImageBlock> attachments = {});
  Result<InputReceipt> followup(Input input);
  Result<InputReceipt> steer(Input input);

  // Pause takes effect at the next complete step boundary; resume continues
  // a paused turn or starts pending input. Abort ends the running turn:
  // streaming stops, the running tool is interrupted, every unfinished call
  // gets its result, and the turn ends `aborted`. Pending input stays pending.
  Result<void> pause();
  Result<void> resume();
  Result<void> abort();
  // Switches the model for the next step; the old provider client is closed.
  Result<void> set_model(const ModelChoice& choice);

  // Answers a pending approval: allow runs the call, deny gives the model
  // the refusal (and the message) as the call's result; the turn goes on.
  // conflict when the id is unknown, already decided, or its call was
  // answered otherwise (an abort skipped it). A project-scope rule is the
  // caller's to write to the project's settings; the agent applies it.
  Result<void> decide(const std::string& approval_id, const ApprovalAnswer& answer);
  // The conversation's mode from the next call on, recorded in the log so a
  // reopened conversation keeps it. invalid_argument without permissions.
  Result<void> set_permission_mode(policy::Mode mode);
  // The rules in force: the settings' plus those granted in this conversation.
  std::optional<PermissionOptions> permissions() const;

  // Durable events, on the writing thread, right after they reached the
  // kernel. Keep callbacks short; they must not call back into the agent.
  std::uint64_t subscribe(EventCallback callback);
  std::uint64_t subscribe_live(LiveCallback callback);
  void unsubscribe(std::uint64_t id);

  Status status() const;
  ContextReport context_report() const;
  // The request the next step would send (compaction not yet applied).
  llm::Request next_request() const;
  const std::string& session_id() const;
  const std::filesystem::path& log_path() const;

  // Completes when the driver is idle (or paused, or closed) with no
  // runnable input.
  boost::asio::awaitable<void> wait_idle();
  // Aborts running work, waits for the driver to finish, closes the provider
  // client and syncs and closes the log. A call waiting for an approval is
  // not aborted: it stays pending in the log, and reopening the log waits
  // for the decision again (the tool has not run, so running it later is safe).
  boost::asio::awaitable<Result<void>> close();
  // Starts close() without waiting, so many agents stop in parallel.
  void begin_close();

 private:
  explicit Agent(std::shared_ptr<AgentCore> core);
  std::shared_ptr<AgentCore> core_;
};

}  // namespace ava::agent
