#pragma once

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
#include "ava/prompts/commands.hpp"
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
};

struct HookOutcome {
  std::string outcome = "ok";  // ok, block, allow, ask, deny
  std::string reason;
  std::optional<nlohmann::json> updated_input;
  std::string additional_context;  // UserPromptSubmit, every hook's in order
};

struct Gate {
  enum Kind { run, refuse, suspend } kind = run;
  std::string text;
  nlohmann::json details;
  session::ToolStatus status = session::ToolStatus::error;
};

// The call as the policy sees it: its category, path or command.
policy::ToolCall describe_call(const tool::ToolSpec& spec, const nlohmann::json& arguments);

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

 private:
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
  // Whether a tool is offered in this turn: every tool, unless the turn
  // took a slash command with allowed-tools. mutex_ held.
  bool offered_in_turn(const session::Context& context, std::string_view tool) const;

  // inbox.cpp: claims under the gate.
  std::vector<std::string> claimable(bool first_step) const;
  Result<void> claim_and_start_step(const TurnPlan& plan, int step);
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

  void prepare(const std::filesystem::path& cwd);
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
  tool::ToolRegistry tools_;
  std::size_t own_tools_ = 0;  // tools_ before the source's
  std::uint64_t source_generation_ = 0;
  std::string system_prompt_;
  prompts::ProjectContext project_context_;  // the files read into system_prompt_
  std::vector<llm::ToolSpec> tool_specs_;    // the registry's, as sent; changed under mutex_
  std::int64_t fixed_tokens_ = 0;            // system prompt and tool schemas
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
  std::optional<ProviderBinding> next_binding_;
  std::string current_turn_;
  int current_step_ = 0;
  std::string activity_;
  std::string last_error_;
  std::int64_t context_window_ = 0;
  std::optional<std::int64_t> max_output_tokens_;
  std::map<std::uint64_t, LiveCallback> live_subscribers_;
  // Every input id of the log and its event's seq: a resent id is answered
  // from here (exactly-once input across client retries).
  std::unordered_map<std::string, session::Seq> acknowledged_;
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
