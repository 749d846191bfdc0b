#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/agent/agent.hpp"
#include "ava/agent/prompt.hpp"
#include "ava/prompts/agents.hpp"
#include "ava/prompts/commands.hpp"
#include "ava/prompts/memory.hpp"
#include "ava/prompts/project_context.hpp"
#include "ava/session/context.hpp"
#include "ava/session/log_writer.hpp"

namespace ava::agent {

// A turn the driver will run next: a new one (its first step claims input)
// or one that was paused at a step boundary and continues at `next_step`.
struct TurnPlan {
  std::string turn_id;
  int next_step = 1;
  bool is_new = true;
  // Reopened in the middle of step `next_step`, whose calls from the first
  // one waiting for an approval still have to run.
  std::vector<llm::ToolCallBlock> resume_calls;
};

// suspended: the agent closed while a call waited for an approval; the
// step and turn stay open in the log for the next process.
enum class StepOutcome { tool_calls, final_answer, aborted, failed, suspended };
enum class ToolsOutcome { completed, aborted, suspended };

// What the permission check lets a call do: run, get `text` as its result
// instead, or wait no longer in this process (suspend).
// What the hooks of one event said, taken together (hooks.cpp): the first
// block or deny ends the run of further hooks; ask outranks allow; a
// rewritten input is what later hooks and the tool see.
// A slash command found in an input (all empty for plain text).
struct ExpandedCommand {
  std::string name;
  std::string expansion;
  std::vector<std::string> allowed_tools;
  bool allowed_tools_unasked = false;
  bool plan = false;     // /plan TASK: a read-only turn that answers with a plan
  std::string model;     // the command's `model:`, for its turn
  bool builtin = false;  // answered by the agent (builtins.cpp), never the model
  std::string arguments;
};

struct HookOutcome {
  std::string outcome = "ok";  // ok, block, allow, ask, deny
  std::string reason;
  std::optional<nlohmann::json> updated_input;
  std::string additional_context;  // UserPromptSubmit, every hook's in order
};

// A call before it runs: a result already (refused, unknown, bad
// arguments), suspended (closing while it waits for a person), or the tool
// and the arguments (after any PreToolUse rewrite) to run it with.
struct Prepared {
  std::optional<session::ToolResult> result;
  bool suspended = false;
  tool::Tool* tool = nullptr;
  nlohmann::json arguments;
  std::string label;  // the activity shown while it runs
};

struct Gate {
  enum Kind { run, refuse, suspend } kind = run;
  std::string text;
  nlohmann::json details;
  session::ToolStatus status = session::ToolStatus::error;
};

// The call as the policy sees it: its category, path or command.
policy::ToolCall describe_call(const tool::ToolSpec& spec, const nlohmann::json& arguments);

// memory_tool.cpp: the `memory` tool over the prompts package's notes, and
// its calls as the policy sees them (list/read: reads; the rest: edits of
// the note's file).
std::unique_ptr<tool::Tool> make_memory_tool(prompts::MemoryPlaces places);

class AgentCore;
// subagents.cpp: the `task` tool, listing the definitions it can start.
std::unique_ptr<tool::Tool> make_task_tool(std::weak_ptr<AgentCore> core,
                                           const std::vector<prompts::AgentDefinition>& agents);
policy::ToolCall describe_memory_call(const nlohmann::json& arguments,
                                      const prompts::MemoryPlaces& places);

// Everything behind Agent. The driver coroutine runs on `strand_` and keeps
// the core alive; API calls come from any thread.
//
// Locks: `gate_` serializes acknowledging input, claiming it and deciding a
// turn boundary (the inbox gate). `mutex_` guards the rest of the shared
// state. Order: gate_ before mutex_; nothing appends to the log while
// holding mutex_, because the log's subscriber (on_durable) takes it.
class AgentCore : public std::enable_shared_from_this<AgentCore> {
 public:
  AgentCore(const boost::asio::any_io_executor& executor, AgentOptions options,
            std::unique_ptr<session::LogWriter> log);
  ~AgentCore();

  // A new log (its session_start is `start`) / a reopened one (history,
  // model override, recorded cwd). Both build prompt and tools and start the
  // driver.
  Result<void> start_new(session::SessionStarted start, ProviderBinding binding);
  Result<void> start_existing();

  Result<InputReceipt> acknowledge(session::InputKind kind, Input input);
  Result<void> request_pause();
  Result<void> request_resume();
  Result<void> request_abort();
  Result<void> set_model(const ModelChoice& choice);
  Result<void> decide(const std::string& approval_id, const ApprovalAnswer& answer);
  Result<void> set_permission_mode(policy::Mode mode);
  std::optional<PermissionOptions> permissions() const;
  void request_close();

  std::uint64_t subscribe(EventCallback callback);
  std::uint64_t subscribe_live(LiveCallback callback);
  void unsubscribe(std::uint64_t id);

  Status status() const;
  ContextReport context_report() const;
  llm::Request next_request() const;
  const std::string& session_id() const { return session_id_; }
  const std::filesystem::path& log_path() const { return log_->path(); }

  boost::asio::awaitable<void> wait_idle();
  boost::asio::awaitable<Result<void>> close();

  // subagents.cpp: runs one `task` call's child to the end of its turn.
  boost::asio::awaitable<Result<tool::ToolResult>> run_subagent(std::string call_id,
                                                                nlohmann::json arguments);

 private:
  Result<AgentOptions> child_options(const prompts::AgentDefinition& definition,
                                     const std::string& call_id) const;
  // Running subagents, for abort, pause, resume and close to reach.
  std::vector<std::shared_ptr<Agent>> children() const;
  // Completes once `settled` (called with mutex_ held) is true.
  boost::asio::awaitable<void> wait_until(std::function<bool()> settled);
  // driver.cpp
  boost::asio::awaitable<void> drive();
  boost::asio::awaitable<std::optional<TurnPlan>> next_turn();
  boost::asio::awaitable<void> run_turn(TurnPlan plan);
  boost::asio::awaitable<StepOutcome> run_step(const std::string& turn_id, int step);
  boost::asio::awaitable<void> wait_for_wake();
  void end_turn(const std::string& turn_id, session::EndReason reason, std::string message);
  void close_turn_after_fault(const std::string& message);
  template <class T>
  boost::asio::awaitable<Result<T>> cancellable(boost::asio::awaitable<Result<T>> operation);
  void set_state(DriverState state);
  void notify();
  void notify_waiters();

  // commands.cpp: "/name args" through the prompts package's templates; an
  // unknown name is an error the sender sees. Any thread; reads files.
  Result<ExpandedCommand> expand_command(std::string_view text) const;
  // builtins.cpp: a built-in's answer for the person (events such as
  // goal_set go to `events`); any thread, no lock held.
  Result<std::string> run_builtin(const ExpandedCommand& command,
                                  std::vector<session::EventBody>& events);
  Result<InputReceipt> answer_builtin(InputReceipt receipt, std::string text,
                                      const ExpandedCommand& command);
  // The id was acknowledged (or answered) before: `receipt` gets the first
  // event's seq and is marked a duplicate.
  bool answered_before(InputReceipt& receipt) const;
  std::string help_text() const;
  Result<std::string> model_command(const std::string& args);
  std::string memory_text() const;
  std::string context_text() const;
  std::string cost_text() const;
  // Whether a tool is offered in this turn: every tool, unless the turn
  // took a slash command with allowed-tools. mutex_ held.
  bool offered_in_turn(const session::Context& context, std::string_view tool) const;

  // inbox.cpp: claims under the gate.
  std::vector<std::string> claimable(bool first_step) const;
  Result<void> claim_and_start_step(const TurnPlan& plan, int step);
  // The provider for a turn whose slash command named a model (on the strand).
  Result<void> bind_turn_model(const std::string& model);
  bool steer_pending() const;
  // prompt_hooks.cpp: UserPromptSubmit for each input a step is about to
  // claim: a block records input_blocked, added context becomes a steer.
  // Afterwards every claimable input has been screened.
  boost::asio::awaitable<void> screen_inputs(bool first_step, std::string turn_id);

  // dispatch.cpp; run_tool's nullopt: suspended (see StepOutcome).
  boost::asio::awaitable<ToolsOutcome> run_tools(const std::string& turn_id, int step,
                                                 const std::vector<llm::ToolCallBlock>& calls);
  boost::asio::awaitable<std::optional<session::ToolResult>> run_tool(
      const std::string& turn_id, int step, const llm::ToolCallBlock& call);
  boost::asio::awaitable<Prepared> prepare_call(const std::string& turn_id, int step,
                                                const llm::ToolCallBlock& call);
  boost::asio::awaitable<session::ToolResult> finish_call(const std::string& turn_id, int step,
                                                          const llm::ToolCallBlock& call,
                                                          const Prepared& prepared,
                                                          Result<tool::ToolResult> outcome);
  void end_activity(const std::string& turn_id, const llm::ToolCallBlock& call,
                    const std::string& label);
  // Consecutive `task` calls: gated one by one, then run at once (bounded);
  // results in the model's order. nullopt: suspended (closing).
  boost::asio::awaitable<std::optional<std::vector<session::ToolResult>>> run_tasks(
      const std::string& turn_id, int step, const std::vector<llm::ToolCallBlock>& calls);
  boost::asio::awaitable<StepOutcome> resume_step(const TurnPlan& plan);
  // An unstarted plan dropped by an abort: its calls skipped, step and turn closed.
  void abandon_plan(const TurnPlan& plan);

  // permissions.cpp; a PreToolUse hook may rewrite `arguments`.
  boost::asio::awaitable<Gate> permission_gate(const std::string& turn_id, int step,
                                               const llm::ToolCallBlock& call,
                                               const tool::Tool& tool, nlohmann::json& arguments);
  // hooks.cpp: runs the event's matching hooks, each a HookRan event.
  // By value: a coroutine's reference parameters outlive the caller's
  // temporaries ("" for no turn) only until its first suspension.
  boost::asio::awaitable<HookOutcome> run_hooks(policy::HookEvent event, std::string tool,
                                                nlohmann::json input, std::string turn_id,
                                                std::string call_id);
  bool has_hooks(policy::HookEvent event, std::string_view tool = {}) const;
  // describe_call, with the memory tool's calls resolved to their notes.
  policy::ToolCall describe(const tool::Tool& tool, const nlohmann::json& arguments) const;
  boost::asio::awaitable<std::optional<session::ApprovalDecided>> await_decision(
      const std::string& approval_id);
  // The settings' rules with the log's mode and granted rules; mutex_ held.
  policy::RuleSet effective_rules() const;
  std::string effective_mode() const;  // mutex_ held; empty without permissions
  bool sandbox_unavailable() const;
  std::string sandbox_name() const;
  static std::vector<session::ApprovalRequested> approvals_of(const session::Context& context);
  policy::Places places() const;

  // request.cpp / compaction.cpp
  llm::Request build_request(const session::Context& context) const;
  boost::asio::awaitable<void> compact_if_needed(const std::string& turn_id, int step);
  // /compact between turns: everything so far becomes the summary.
  boost::asio::awaitable<void> compact_on_request(std::string focus);
  boost::asio::awaitable<void> compact(const std::string& turn_id, int step, llm::Request request,
                                       std::vector<session::Seq> seqs, std::size_t cut,
                                       std::int64_t tokens, std::string focus);

  void prepare(const std::filesystem::path& cwd);
  // The memory index in the system prompt, read again at a turn's start;
  // the prompt is rebuilt only when the index changed. On the strand.
  void refresh_memory_index();
  prompts::MemoryPlaces memory_places() const;
  // tools.cpp: the source's tools after the agent's own; refreshed between
  // steps (on the strand) when the source's generation moved.
  void add_source_tools();
  void refresh_source_tools();
  void publish_tool_specs();
  void launch();
  void on_durable(const session::Event& event);
  void remember_input(const session::Event& event);  // with mutex_ held or before launch
  void emit_live(const LiveEvent& event);
  Result<session::Seq> append(std::vector<session::EventBody> bodies);
  void swap_provider_if_requested();

  boost::asio::any_io_executor executor_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  AgentOptions options_;
  std::unique_ptr<session::LogWriter> log_;
  std::string session_id_;

  // Driver-only (on the strand).
  ProviderBinding binding_;
  std::optional<ProviderBinding> turn_binding_;  // a command's model, until its turn ends
  std::string turn_model_;
  tool::ToolRegistry tools_;
  std::size_t own_tools_ = 0;  // tools_ before the source's
  std::uint64_t source_generation_ = 0;
  std::string system_prompt_;
  prompts::ProjectContext project_context_;  // the files read into system_prompt_
  PromptInputs prompt_inputs_;               // what system_prompt_ was built from
  bool built_prompt_ = false;                // false: options_.system_prompt replaced it
  std::vector<llm::ToolSpec> tool_specs_;    // the registry's, as sent; changed under mutex_
  std::unordered_set<std::string> read_only_tools_;  // offered in a /plan turn; under mutex_
  std::int64_t fixed_tokens_ = 0;                    // system prompt and tool schemas
  tool::ToolContext tool_context_;
  boost::asio::steady_timer wake_timer_;
  boost::asio::steady_timer approval_timer_;  // a call waiting for its decision
  boost::asio::cancellation_signal cancel_;
  std::vector<boost::asio::steady_timer*> idle_waiters_;
  std::optional<TurnPlan> paused_turn_;
  // Inputs UserPromptSubmit has seen (or that the agent wrote itself); only
  // these are claimed while such a hook is configured. Claims remove them.
  std::unordered_set<std::string> screened_inputs_;

  std::optional<PermissionOptions> permissions_;  // fixed at construction

  std::mutex gate_;
  std::mutex decide_mutex_;  // one approval decision at a time
  mutable std::mutex mutex_;
  session::ContextBuilder context_;
  std::size_t compactions_ = 0;
  DriverState state_ = DriverState::idle;
  bool wake_pending_ = false;
  bool pause_requested_ = false;
  bool abort_requested_ = false;
  bool close_requested_ = false;
  bool held_ = false;  // after a failed turn: wait for input or resume()
  bool driver_done_ = false;
  std::optional<std::string> compact_requested_;  // /compact's focus, until the driver runs it
  std::vector<std::shared_ptr<Agent>> children_;  // running subagents
  std::vector<prompts::AgentDefinition> agents_;  // what `task` may start; fixed at start
  std::optional<ProviderBinding> next_binding_;
  std::string current_turn_;
  int current_step_ = 0;
  std::string activity_;
  std::string last_error_;
  std::int64_t context_window_ = 0;
  std::optional<std::int64_t> max_output_tokens_;
  std::map<std::uint64_t, LiveCallback> live_subscribers_;
  // The last kRememberedInputs input ids of the log and their events' seqs:
  // a resent id is answered from here (exactly-once input across client
  // retries). Clients resend within moments, so a window bounds the memory
  // of a long conversation without weakening that.
  static constexpr std::size_t kRememberedInputs = 1024;
  std::unordered_map<std::string, session::Seq> acknowledged_;
  std::deque<const std::string*> acknowledged_order_;  // keys of acknowledged_, oldest first
  // Decisions that reached the log, until the waiting call takes its own.
  std::unordered_map<std::string, session::ApprovalDecided> decisions_;
  // Requests answered before the driver reached their call (a decision
  // right after a reopen), by call id: the gate takes the answer from here.
  std::unordered_map<std::string, session::ApprovalRequested> answered_requests_;
  std::uint64_t next_live_id_ = 1ULL << 62;  // apart from the log's subscriber ids
};

// Runs a provider or tool operation so that abort() can cancel it: bound to
// the agent's cancellation signal, with Asio's throw-on-cancel turned off (a
// cancelled operation returns its own result), and with an exception that
// escapes the operation (a bug) turned into an internal error.
template <class T>
boost::asio::awaitable<Result<T>> guarded(boost::asio::awaitable<Result<T>> operation) {
  co_await boost::asio::this_coro::throw_if_cancelled(false);
  try {
    co_return co_await std::move(operation);
  } catch (const std::exception& error) {
    co_return fail(ErrorCode::internal, std::string("unexpected exception: ") + error.what());
  }
}

// Helpers shared by the driver files.
std::vector<llm::ToolCallBlock> tool_calls_of(const llm::Message& message);
std::string activity_label(const llm::ToolCallBlock& call);
std::int64_t estimate_tokens(const llm::Request& request);
std::int64_t estimate_message_tokens(const llm::Message& message);
std::vector<llm::ToolSpec> to_llm_specs(const tool::ToolRegistry& tools);

template <class T>
boost::asio::awaitable<Result<T>> AgentCore::cancellable(
    boost::asio::awaitable<Result<T>> operation) {
  auto spawned = boost::asio::co_spawn(
      strand_, guarded(std::move(operation)),
      boost::asio::bind_cancellation_slot(cancel_.slot(), boost::asio::use_awaitable));
  co_return co_await std::move(spawned);
}

}  // namespace ava::agent
