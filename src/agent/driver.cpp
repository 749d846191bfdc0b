// The driver: one coroutine per agent, on the agent's strand, that turns
// acknowledged input into turns of provider steps and tool calls.

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/id.hpp"
#include "ava/llm/event_json.hpp"
#include "core.hpp"

namespace ava::agent {

namespace asio = boost::asio;
using json = nlohmann::json;
using session::EndReason;

asio::awaitable<void> AgentCore::drive() {
  if (has_hooks(policy::HookEvent::session_start)) {
    bool resumed = false;
    {
      // Input may already be arriving on another thread (ThreadSanitizer
      // found this read racing an acknowledgement's apply).
      std::lock_guard lock(mutex_);
      resumed = context_.context().last_seq > 1;
    }
    auto hooking = run_hooks(policy::HookEvent::session_start, {},
                             json{{"source", resumed ? "resume" : "startup"}}, "", "");
    co_await std::move(hooking);
  }
  for (;;) {
    auto plan = co_await next_turn();
    if (!plan) break;
    std::string fault;
    try {
      co_await run_turn(*plan);
    } catch (const std::exception& error) {
      fault = error.what();
    }
    // A bug escaped the turn: close it so its calls stay paired, then hold.
    if (!fault.empty()) close_turn_after_fault(fault);
    // A turn boundary (or a pause): where the log is fsynced, without
    // holding the gate, so acknowledgements never wait for the disk.
    if (auto synced = log_->sync(); !synced) {
      spdlog::error("agent {}: cannot sync the log: {}", session_id_, synced.error().message);
    }
  }
  if (has_hooks(policy::HookEvent::session_end)) {
    auto hooking = run_hooks(policy::HookEvent::session_end, {}, json{{"reason", "close"}}, "", "");
    co_await std::move(hooking);
  }
  {
    std::lock_guard lock(mutex_);
    driver_done_ = true;
    state_ = DriverState::closed;
  }
  notify_waiters();
  emit_live(StateChanged{DriverState::closed});
}

void AgentCore::set_state(DriverState state) {
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    changed = state_ != state;
    state_ = state;
  }
  // Waiters re-check even when the state stays: what they wait for also
  // depends on pending input and on requests the driver just handled.
  notify_waiters();
  if (changed) emit_live(StateChanged{state});
}

asio::awaitable<void> AgentCore::wait_for_wake() {
  {
    std::lock_guard lock(mutex_);
    if (wake_pending_) {
      wake_pending_ = false;
      co_return;
    }
  }
  // notify() sets the flag, then cancels this timer on the strand; checking
  // the flag and starting the wait happen without a suspension between them,
  // so no wake-up is lost.
  wake_timer_.expires_at(asio::steady_timer::time_point::max());
  co_await wake_timer_.async_wait(asio::as_tuple(asio::use_awaitable));
  std::lock_guard lock(mutex_);
  wake_pending_ = false;
}

// Decides what runs next, or that the driver stops (nullopt: closing).
asio::awaitable<std::optional<TurnPlan>> AgentCore::next_turn() {
  for (;;) {
    swap_provider_if_requested();
    bool closing = false;
    bool pausing = false;
    bool aborting = false;
    bool log_paused = false;
    {
      std::lock_guard lock(mutex_);
      closing = close_requested_;
      pausing = pause_requested_;
      aborting = abort_requested_;
      log_paused = context_.context().paused;
    }
    // A turn paused at a step boundary stays open on close: reopening the
    // log resumes it.
    if (closing) co_return std::nullopt;
    if (aborting) {
      if (paused_turn_) {
        abandon_plan(*paused_turn_);
        paused_turn_.reset();
      }
      std::lock_guard lock(mutex_);
      abort_requested_ = false;
      continue;
    }
    if (pausing) {
      if (!log_paused) (void)append({session::Paused{}});
      set_state(DriverState::paused);
      co_await wait_for_wake();
      continue;
    }
    if (log_paused) (void)append({session::Resumed{}});
    if (paused_turn_) {
      auto plan = std::move(*paused_turn_);
      paused_turn_.reset();
      co_return plan;
    }
    std::optional<std::string> compaction;
    {
      std::lock_guard lock(mutex_);
      compaction.swap(compact_requested_);
    }
    if (compaction) {
      co_await compact_on_request(std::move(*compaction));
      continue;
    }
    {
      std::lock_guard gate(gate_);
      std::lock_guard lock(mutex_);
      if (!held_ && !context_.context().pending.empty()) {
        co_return TurnPlan{.turn_id = base::new_id(), .next_step = 1, .is_new = true};
      }
    }
    set_state(DriverState::idle);
    co_await wait_for_wake();
  }
}

void AgentCore::end_turn(const std::string& turn_id, EndReason reason, std::string message) {
  if (reason == EndReason::error || reason == EndReason::max_steps) {
    std::lock_guard lock(mutex_);
    last_error_ = message;
  }
  // The fsync of the turn boundary follows in drive(), outside the gate.
  auto ended = append(
      {session::TurnEnded{.turn_id = turn_id, .reason = reason, .message = std::move(message)}});
  if (!ended) {
    spdlog::error("agent {}: cannot close turn {}: {}", session_id_, turn_id,
                  ended.error().message);
  }
  {
    std::lock_guard lock(mutex_);
    abort_requested_ = false;
    activity_.clear();
    if (reason == EndReason::error) held_ = true;
  }
  if (turn_binding_) {
    if (turn_binding_->provider) turn_binding_->provider->close();
    turn_binding_.reset();
    turn_model_.clear();
  }
}

void AgentCore::abandon_plan(const TurnPlan& plan) {
  if (plan.resume_calls.empty()) {
    end_turn(plan.turn_id, EndReason::aborted, "aborted while paused");
    return;
  }
  std::vector<session::EventBody> closers;
  for (const auto& call : plan.resume_calls) {
    closers.emplace_back(session::ToolResult{
        .turn_id = plan.turn_id,
        .step = plan.next_step,
        .call_id = call.id,
        .tool_name = call.name,
        .status = session::ToolStatus::skipped,
        .content = {llm::TextBlock{"Skipped: the user aborted the turn before this tool call "
                                   "started."}}});
  }
  closers.emplace_back(session::StepEnded{
      .turn_id = plan.turn_id, .step = plan.next_step, .reason = EndReason::aborted});
  (void)append(std::move(closers));
  end_turn(plan.turn_id, EndReason::aborted, "aborted while waiting for an approval");
}

void AgentCore::close_turn_after_fault(const std::string& message) {
  spdlog::error("agent {}: turn failed: {}", session_id_, message);
  std::vector<session::EventBody> closers;
  std::string turn_id;
  {
    std::lock_guard lock(mutex_);
    const auto& context = context_.context();
    turn_id = context.open_turn;
    for (const auto& call_id : context.unpaired_calls) {
      closers.emplace_back(session::ToolResult{
          .turn_id = turn_id,
          .step = context.open_step.value_or(0),
          .call_id = call_id,
          .status = session::ToolStatus::interrupted,
          .content = {llm::TextBlock{"Interrupted: Ava failed internally during this turn."}}});
    }
    if (context.open_step) {
      closers.emplace_back(session::StepEnded{
          .turn_id = turn_id, .step = *context.open_step, .reason = EndReason::error});
    }
    held_ = true;
    last_error_ = message;
  }
  closers.emplace_back(
      session::ErrorOccurred{.turn_id = turn_id, .code = "internal", .message = message});
  (void)append(std::move(closers));
  if (!turn_id.empty()) end_turn(turn_id, EndReason::error, message);
}

asio::awaitable<void> AgentCore::run_turn(TurnPlan plan) {
  bool pausing = false;
  {
    std::lock_guard lock(mutex_);
    last_error_.clear();
    pausing = pause_requested_;
  }
  set_state(pausing ? DriverState::pausing : DriverState::running);
  if (plan.is_new) refresh_memory_index();
  bool stop_hook_continued = false;
  for (int step = plan.next_step;; ++step) {
    const bool resuming = step == plan.next_step && !plan.resume_calls.empty();
    bool aborting = false;
    {
      std::lock_guard lock(mutex_);
      aborting = abort_requested_;
    }
    if (aborting) {
      if (resuming) {
        abandon_plan(plan);
      } else {
        end_turn(plan.turn_id, EndReason::aborted, "aborted by the user");
      }
      co_return;
    }
    if (!resuming && step > options_.max_steps) {
      end_turn(plan.turn_id, EndReason::max_steps,
               fmt::format("stopped after {} steps (the per-turn limit)", options_.max_steps));
      co_return;
    }
    StepOutcome outcome = StepOutcome::failed;
    if (resuming) {
      // A step reopened in the middle: its response is in the log; the rest
      // of its calls run now.
      outcome = co_await resume_step(plan);
    } else {
      const bool first_step = plan.is_new && step == plan.next_step;
      if (has_hooks(policy::HookEvent::user_prompt_submit)) {
        co_await screen_inputs(first_step, plan.turn_id);
        if (first_step) {
          std::lock_guard gate(gate_);
          // Every input that would start it was blocked: no turn.
          const auto ids = claimable(true);
          if (std::ranges::none_of(ids,
                                   [&](const auto& id) { return screened_inputs_.contains(id); }))
            co_return;
        }
      }
      if (auto started = claim_and_start_step(plan, step); !started) {
        // The log refuses writes: nothing more can be acknowledged or recorded.
        spdlog::error("agent {}: {}", session_id_, started.error().message);
        std::lock_guard lock(mutex_);
        last_error_ = started.error().message;
        held_ = true;
        co_return;
      }
      outcome = co_await run_step(plan.turn_id, step);
    }
    switch (outcome) {
      case StepOutcome::tool_calls: {
        std::lock_guard lock(mutex_);
        if (pause_requested_ && !abort_requested_) {
          paused_turn_ = TurnPlan{.turn_id = plan.turn_id, .next_step = step + 1, .is_new = false};
          co_return;
        }
        break;
      }
      case StepOutcome::final_answer: {
        // A Stop hook may keep the turn going once: its reason goes to the
        // model as a steer (durable, so a restart does not ask again). The
        // next time it is told so (stop_hook_active) and cannot block.
        if (has_hooks(policy::HookEvent::stop)) {
          auto hooking =
              run_hooks(policy::HookEvent::stop, {},
                        json{{"stop_hook_active", stop_hook_continued}}, plan.turn_id, "");
          const HookOutcome hooked = co_await std::move(hooking);
          if (hooked.outcome == "block" && !stop_hook_continued) {
            stop_hook_continued = true;
            screened_inputs_.insert("stop-hook." + plan.turn_id);
            (void)acknowledge(
                session::InputKind::steer,
                Input{.text = "Stop hook: " +
                              (hooked.reason.empty() ? std::string("keep going") : hooked.reason),
                      .input_id = "stop-hook." + plan.turn_id});
          }
        }
        // Deciding the turn boundary under the gate: a steer acknowledged
        // before this point gets another step; one after it starts a turn.
        std::lock_guard gate(gate_);
        if (steer_pending()) break;
        end_turn(plan.turn_id, EndReason::completed, "");
        co_return;
      }
      case StepOutcome::aborted:
        end_turn(plan.turn_id, EndReason::aborted, "aborted by the user");
        co_return;
      case StepOutcome::suspended: co_return;  // the agent closes; the step stays open
      case StepOutcome::failed: {
        std::string message;
        {
          std::lock_guard lock(mutex_);
          message = last_error_;
        }
        end_turn(plan.turn_id, EndReason::error, std::move(message));
        co_return;
      }
    }
  }
}

asio::awaitable<StepOutcome> AgentCore::run_step(const std::string& turn_id, int step) {
  swap_provider_if_requested();
  refresh_source_tools();
  co_await compact_if_needed(turn_id, step);
  llm::Request request;
  bool aborted_before = false;
  {
    std::lock_guard lock(mutex_);
    request = build_request(context_.context());
    aborted_before = abort_requested_;
  }
  if (aborted_before) {
    (void)append(
        {session::StepEnded{.turn_id = turn_id, .step = step, .reason = EndReason::aborted}});
    co_return StepOutcome::aborted;
  }
  std::string partial_text;
  // Time to first token: the first text, thinking or tool call streamed.
  const auto sent = std::chrono::steady_clock::now();
  std::int64_t first_token_ms = 0;
  const auto since_sent = [&sent] {
    return std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - sent)
                                         .count());
  };
  llm::EventSink sink = [&](const llm::StreamEvent& event) {
    if (first_token_ms == 0 && (std::holds_alternative<llm::TextDelta>(event) ||
                                std::holds_alternative<llm::ThinkingDelta>(event) ||
                                std::holds_alternative<llm::ToolCallStart>(event))) {
      first_token_ms = since_sent();
    }
    if (const auto* text = std::get_if<llm::TextDelta>(&event)) partial_text += text->text;
    emit_live(StreamProgress{.turn_id = turn_id, .step = step, .event = event});
  };
  // A slash command's model answers its turn (bound when the turn took the
  // command, or again after a restart in the middle of the turn).
  llm::Provider* provider = binding_.provider.get();
  std::string turn_model;
  {
    std::lock_guard lock(mutex_);
    turn_model = context_.context().turn_model;
  }
  if (!turn_model.empty() && bind_turn_model(turn_model)) {
    provider = turn_binding_->provider.get();
    request.model = turn_binding_->model;
  }
  auto streaming = cancellable(provider->stream(request, sink));
  Result<llm::Response> result = co_await std::move(streaming);
  bool aborted = false;
  {
    std::lock_guard lock(mutex_);
    aborted = abort_requested_;
  }

  if (!result) {
    const Error& error = result.error();
    if (aborted || error.code == ErrorCode::cancelled) {
      // Keep what the user already saw; an unfinished tool call is not kept.
      std::vector<session::EventBody> closing;
      if (!partial_text.empty()) {
        closing.emplace_back(session::AssistantMessage{
            .turn_id = turn_id, .step = step, .content = {llm::TextBlock{partial_text}}});
      }
      closing.emplace_back(session::StepEnded{.turn_id = turn_id,
                                              .step = step,
                                              .reason = EndReason::aborted,
                                              .stop_reason = "aborted"});
      (void)append(std::move(closing));
      co_return StepOutcome::aborted;
    }
    {
      std::lock_guard lock(mutex_);
      last_error_ = error.message;
    }
    (void)append(
        {session::ErrorOccurred{.turn_id = turn_id,
                                .code = std::string(to_string(error.code)),
                                .message = error.message},
         session::StepEnded{.turn_id = turn_id, .step = step, .reason = EndReason::error}});
    co_return StepOutcome::failed;
  }

  llm::Response& response = *result;
  const std::int64_t duration_ms = since_sent();
  const bool billed = response.usage != llm::Usage{};
  if (response.error) {
    // Nothing of a failed response enters the context, but its usage was billed.
    std::vector<session::EventBody> failed;
    if (billed) {
      failed.emplace_back(session::UsageRecorded{.turn_id = turn_id,
                                                 .step = step,
                                                 .model = request.model,
                                                 .usage = response.usage,
                                                 .first_token_ms = first_token_ms,
                                                 .duration_ms = duration_ms});
    }
    failed.emplace_back(
        session::ErrorOccurred{.turn_id = turn_id,
                               .code = std::string(llm::to_string(response.error->kind)),
                               .message = response.error->message});
    failed.emplace_back(session::StepEnded{.turn_id = turn_id,
                                           .step = step,
                                           .reason = EndReason::error,
                                           .stop_reason = response.stop.provider_reason});
    {
      std::lock_guard lock(mutex_);
      last_error_ = fmt::format("{} error: {}", llm::to_string(response.error->kind),
                                response.error->message);
    }
    (void)append(std::move(failed));
    co_return StepOutcome::failed;
  }

  const auto calls = tool_calls_of(response.message);
  // Calls the output limit cut off are recorded, with a result saying so in
  // the same write (so no restart can find them unanswered), and never run;
  // the turn goes on so that the model can send them again.
  std::vector<session::ToolResult> cut_results;
  for (auto& cut : response.cut_calls) {
    cut_results.push_back(session::ToolResult{
        .turn_id = turn_id,
        .step = step,
        .call_id = cut.id,
        .tool_name = cut.name,
        .status = session::ToolStatus::error,
        .content = {llm::TextBlock{fmt::format(
            "Not run: the output limit ({}) cut off the response before this call to {} was "
            "complete ({} bytes of arguments had arrived). Send the call again with shorter "
            "arguments; write a large file in several smaller steps.",
            response.stop.provider_reason.empty() ? "max_tokens" : response.stop.provider_reason,
            cut.name, cut.arguments.size())}},
        .details = nullptr});
    response.message.content.emplace_back(std::move(cut));
  }
  std::vector<session::EventBody> answer;
  if (!response.message.content.empty()) {
    answer.emplace_back(session::AssistantMessage{
        .turn_id = turn_id, .step = step, .content = std::move(response.message.content)});
  }
  for (auto& cut_result : cut_results) answer.emplace_back(std::move(cut_result));
  answer.emplace_back(session::UsageRecorded{.turn_id = turn_id,
                                             .step = step,
                                             .model = request.model,
                                             .usage = response.usage,
                                             .first_token_ms = first_token_ms,
                                             .duration_ms = duration_ms});
  if (calls.empty()) {
    answer.emplace_back(session::StepEnded{.turn_id = turn_id,
                                           .step = step,
                                           .reason = EndReason::completed,
                                           .stop_reason = response.stop.provider_reason});
  }
  if (auto appended = append(std::move(answer)); !appended) {
    std::lock_guard lock(mutex_);
    last_error_ = appended.error().message;
    co_return StepOutcome::failed;
  }
  if (calls.empty()) {
    co_return cut_results.empty() ? StepOutcome::final_answer : StepOutcome::tool_calls;
  }

  const ToolsOutcome tools = co_await run_tools(turn_id, step, calls);
  if (tools == ToolsOutcome::suspended) co_return StepOutcome::suspended;
  const bool completed = tools == ToolsOutcome::completed;
  (void)append({session::StepEnded{.turn_id = turn_id,
                                   .step = step,
                                   .reason = completed ? EndReason::completed : EndReason::aborted,
                                   .stop_reason = response.stop.provider_reason}});
  co_return completed ? StepOutcome::tool_calls : StepOutcome::aborted;
}

asio::awaitable<StepOutcome> AgentCore::resume_step(const TurnPlan& plan) {
  refresh_source_tools();
  const ToolsOutcome tools = co_await run_tools(plan.turn_id, plan.next_step, plan.resume_calls);
  if (tools == ToolsOutcome::suspended) co_return StepOutcome::suspended;
  const bool completed = tools == ToolsOutcome::completed;
  (void)append({session::StepEnded{.turn_id = plan.turn_id,
                                   .step = plan.next_step,
                                   .reason = completed ? EndReason::completed : EndReason::aborted,
                                   .stop_reason = "tool_use"}});
  co_return completed ? StepOutcome::tool_calls : StepOutcome::aborted;
}

}  // namespace ava::agent
