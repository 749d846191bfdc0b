// The inbox gate's claims. Acknowledgement (AgentCore::acknowledge), the
// claim below and the turn-boundary decision (run_turn) all hold gate_, so an
// acknowledged input is claimed exactly once and never lost between the
// driver's look at the queue and its claim.

#include <algorithm>

#include "core.hpp"

namespace ava::agent {

// Caller holds gate_ (and so sees a stable queue). A turn's first step takes
// the oldest follow-up; every step takes every pending steer. Ids are in
// acknowledgement order.
std::vector<std::string> AgentCore::claimable(bool first_step) const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  bool took_followup = false;
  for (const auto& input : context_.context().pending) {
    if (input.kind == session::InputKind::steer) {
      ids.push_back(input.input_id);
    } else if (first_step && !took_followup) {
      ids.push_back(input.input_id);
      took_followup = true;
    }
  }
  return ids;
}

bool AgentCore::steer_pending() const {
  std::lock_guard lock(mutex_);
  for (const auto& input : context_.context().pending) {
    if (input.kind == session::InputKind::steer) return true;
  }
  return false;
}

Result<void> AgentCore::claim_and_start_step(const TurnPlan& plan, int step) {
  const bool first_step = plan.is_new && step == plan.next_step;
  std::string model;
  {
    std::lock_guard lock(mutex_);
    model = context_.context().model;
    current_turn_ = plan.turn_id;
    current_step_ = step;
  }
  std::lock_guard gate(gate_);
  std::vector<session::EventBody> events;
  if (first_step) events.emplace_back(session::TurnStarted{.turn_id = plan.turn_id});
  auto ids = claimable(first_step);
  if (has_hooks(policy::HookEvent::user_prompt_submit)) {
    // An input acknowledged after the screening waits for the next step's.
    std::erase_if(ids, [&](const std::string& id) { return !screened_inputs_.contains(id); });
    for (const auto& id : ids) screened_inputs_.erase(id);
  }
  // A slash command's model runs the turn that takes it.
  std::string turn_model;
  {
    std::lock_guard lock(mutex_);
    turn_model = context_.context().turn_model;
    for (const auto& input : context_.context().pending) {
      if (!input.model.empty() && std::ranges::find(ids, input.input_id) != ids.end()) {
        turn_model = input.model;
      }
    }
  }
  if (!turn_model.empty()) {
    if (auto bound = bind_turn_model(turn_model); !bound) {
      events.emplace_back(session::ErrorOccurred{
          .turn_id = plan.turn_id,
          .code = std::string(to_string(bound.error().code)),
          .message = "the command's model " + turn_model + " is not available (" +
                     bound.error().message + "); the conversation's model answers"});
    } else {
      model = turn_binding_->model;
    }
  }
  if (!ids.empty()) {
    events.emplace_back(
        session::InputClaimed{.input_ids = std::move(ids), .turn_id = plan.turn_id, .step = step});
  }
  events.emplace_back(session::StepStarted{.turn_id = plan.turn_id, .step = step, .model = model});
  AVA_TRY_VOID(append(std::move(events)));
  return {};
}

Result<void> AgentCore::bind_turn_model(const std::string& model) {
  if (turn_binding_ && turn_model_ == model) return {};
  AVA_TRY(auto binding, options_.provider_factory({.provider = "", .model = model}));
  if (!binding.provider) return fail(ErrorCode::internal, "provider factory returned no provider");
  if (turn_binding_ && turn_binding_->provider) turn_binding_->provider->close();
  turn_binding_ = std::move(binding);
  turn_model_ = model;
  return {};
}

}  // namespace ava::agent
