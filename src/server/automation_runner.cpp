#include "server/automation_runner.hpp"

#include <fmt/format.h>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "ava/automation/schedule.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;
using automation::OccurrenceState;
using automation::RunOutcome;

// What one run waits for: its turn's end, or its time limit. Ended once.
struct RunWatch {
  std::mutex mutex;
  bool ended = false;
  bool timed_out = false;
  std::uint64_t subscription = 0;
  std::function<void(RunOutcome)> report;
  std::unique_ptr<asio::steady_timer> limit;
};

RunOutcome outcome_of(const session::TurnEnded& end, bool timed_out, std::int64_t limit_ms) {
  switch (end.reason) {
    case session::EndReason::completed: return {.state = OccurrenceState::finished};
    case session::EndReason::aborted:
      if (timed_out) {
        return {.state = OccurrenceState::failed,
                .error = fmt::format("aborted at the time limit ({} s)", limit_ms / 1000)};
      }
      return {.state = OccurrenceState::interrupted, .error = "aborted: " + end.message};
    case session::EndReason::interrupted:
      return {.state = OccurrenceState::interrupted, .error = end.message};
    case session::EndReason::error:
    case session::EndReason::max_steps:
      return {.state = OccurrenceState::failed, .error = end.message};
  }
  return {.state = OccurrenceState::failed, .error = end.message};
}

}  // namespace

Result<std::string> AutomationRunner::start(const automation::Automation& automation,
                                            std::int64_t scheduled_ms,
                                            std::function<void(RunOutcome)> ended) {
  AVA_TRY(const auto project, registry_.add_project(automation.project, ""));
  std::string when = std::to_string(scheduled_ms);
  if (auto zone = automation::TimeZone::load(automation.time_zone))
    when = zone->format(scheduled_ms);
  protocol::CreateConversation request{
      .project_id = project.id,
      .title = fmt::format("{} · {}", automation.name, when),
      .model = {.provider = automation.provider, .model = automation.model},
      .permission_mode = automation.permission_mode};
  // Like ava -p: never waits for a person; auto runs inside the
  // workspace-write sandbox unless the settings say otherwise.
  ConversationHost::Unattended unattended{
      .flags = {.mode = std::nullopt,
                .allowed = automation.allowed_tools,
                .disallowed = automation.disallowed_tools,
                .sandbox = std::nullopt},
      .defaults = {.sandbox = proc::SandboxMode::workspace_write,
                   .auto_inside_sandbox = true,
                   .can_ask = false},
      .automation_id = automation.id};
  AVA_TRY(const auto conversation, host_.create(request, unattended));
  AVA_TRY(auto live, host_.open(conversation.id));

  auto watch = std::make_shared<RunWatch>();
  watch->report = std::move(ended);
  watch->limit = std::make_unique<asio::steady_timer>(executor_);
  const std::int64_t limit_ms = automation.time_limit_ms;
  std::weak_ptr<LiveConversation> weak = live;
  auto finish = [this, watch, weak, limit_ms](const session::TurnEnded& end) {
    std::function<void(RunOutcome)> report;
    RunOutcome outcome;
    {
      std::lock_guard lock(watch->mutex);
      if (watch->ended) return;
      watch->ended = true;
      report = std::move(watch->report);
      outcome = outcome_of(end, watch->timed_out, limit_ms);
    }
    // Not on the log's writing thread, and never within start().
    asio::post(executor_, [watch, weak, report = std::move(report), outcome]() mutable {
      watch->limit->cancel();
      if (auto open = weak.lock()) open->agent->unsubscribe(watch->subscription);
      report(std::move(outcome));
    });
  };
  const std::string input_id = fmt::format("automation.{}.{}", automation.id, scheduled_ms);
  watch->subscription = live->agent->subscribe([finish, input_id](const session::Event& event) {
    if (const auto* end = std::get_if<session::TurnEnded>(&event.body)) {
      finish(*end);
    } else if (const auto* answered = std::get_if<session::CommandOutput>(&event.body);
               answered && answered->input_id == input_id) {
      finish({.reason = session::EndReason::completed});  // a built-in: no turn
    } else if (const auto* blocked = std::get_if<session::InputBlocked>(&event.body);
               blocked && blocked->input_id == input_id) {
      finish({.reason = session::EndReason::error,
              .message = "a UserPromptSubmit hook blocked the prompt: " + blocked->reason});
    }
  });
  auto accepted =
      live->agent->followup(agent::Input{.text = automation.prompt, .input_id = input_id});
  if (!accepted) {
    live->agent->unsubscribe(watch->subscription);
    return fail(accepted.error().code, "the prompt was refused: " + accepted.error().message);
  }
  watch->limit->expires_after(std::chrono::milliseconds(limit_ms));
  watch->limit->async_wait([watch, weak](const boost::system::error_code& error) {
    if (error) return;
    {
      std::lock_guard lock(watch->mutex);
      if (watch->ended) return;
      watch->timed_out = true;
    }
    if (auto open = weak.lock()) (void)open->agent->abort();
  });
  return conversation.id;
}

}  // namespace ava::server
