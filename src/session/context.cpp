#include "ava/session/context.hpp"

#include <algorithm>

#include "session/overload.hpp"

namespace ava::session {

namespace {

content::ToolResultBlock to_result_block(const ToolResult& result) {
  return {.call_id = result.call_id,
          .content = result.content,
          .is_error = result.status != ToolStatus::ok};
}

}  // namespace

std::string summary_message_text(const std::string& summary) {
  return "[Summary of the earlier conversation, written when it was compacted]\n" + summary;
}

void ContextBuilder::add_message(Seq seq, content::Message message) {
  context_.messages.push_back(std::move(message));
  context_.message_seqs.push_back(seq);
}

std::string goal_reminder_text(const std::string& goal) {
  return "[Ongoing goal, set by the user with /goal: " + goal +
         "]\nKeep working towards it; say when it is reached or blocked.";
}

void ContextBuilder::claim(const Event& event, const InputClaimed& claimed) {
  content::Message message{.role = content::Role::user};
  // A turn's first step: the goal is reminded before what starts the turn.
  if (claimed.step == 1 && !context_.goal.empty()) {
    message.content.emplace_back(content::TextBlock{goal_reminder_text(context_.goal)});
  }
  const std::size_t reminder = message.content.size();
  for (const auto& id : claimed.input_ids) {
    auto it = std::ranges::find(context_.pending, id, &PendingInput::input_id);
    if (it == context_.pending.end()) continue;  // claimed twice or never acknowledged
    // The pending entry is dropped right after: its text and images move.
    if (!it->text.empty()) message.content.emplace_back(content::TextBlock{std::move(it->text)});
    for (auto& image : it->attachments) message.content.emplace_back(std::move(image));
    if (it->plan) context_.turn_plan = true;
    if (!it->model.empty()) context_.turn_model = it->model;
    for (auto& rule : it->allowed_tools) {
      if (it->allowed_tools_unasked) context_.turn_granted_rules.push_back(rule);
      context_.turn_allowed_tools.push_back(std::move(rule));
    }
    context_.pending.erase(it);
  }
  if (message.content.size() > reminder) add_message(event.seq, std::move(message));
}

void ContextBuilder::compact(const Compacted& compacted) {
  std::vector<content::Message> kept;
  std::vector<Seq> kept_seqs;
  for (std::size_t i = 0; i < context_.messages.size(); ++i) {
    if (context_.message_seqs[i] >= compacted.first_kept_seq) {
      kept.push_back(std::move(context_.messages[i]));
      kept_seqs.push_back(context_.message_seqs[i]);
    }
  }
  content::Message summary{
      .role = content::Role::user,
      .content = {content::TextBlock{summary_message_text(compacted.summary)}}};
  kept.insert(kept.begin(), std::move(summary));
  // The summary stands for everything before the first kept event.
  kept_seqs.insert(kept_seqs.begin(),
                   compacted.first_kept_seq == 0 ? 0 : compacted.first_kept_seq - 1);
  context_.messages = std::move(kept);
  context_.message_seqs = std::move(kept_seqs);
}

void ContextBuilder::apply(const Event& event) {
  context_.last_seq = event.seq;
  std::visit(Overload{
                 [&](const SessionStarted& e) {
                   context_.session_id = e.session_id;
                   context_.provider = e.provider;
                   context_.model = e.model;
                   context_.cwd = e.cwd;
                 },
                 [&](const InputAcknowledged& e) {
                   context_.pending.push_back({.seq = event.seq,
                                               .input_id = e.input_id,
                                               .kind = e.kind,
                                               .text = e.expansion.empty() ? e.text : e.expansion,
                                               .attachments = e.attachments,
                                               .allowed_tools = e.allowed_tools,
                                               .allowed_tools_unasked = e.allowed_tools_unasked,
                                               .plan = e.plan,
                                               .model = e.model});
                 },
                 [&](const InputClaimed& e) { claim(event, e); },
                 [&](const InputBlocked& e) {
                   std::erase_if(context_.pending,
                                 [&](const PendingInput& p) { return p.input_id == e.input_id; });
                 },
                 [&](const TurnStarted& e) {
                   context_.open_turn = e.turn_id;
                   context_.open_step.reset();
                 },
                 [&](const TurnEnded&) {
                   context_.open_turn.clear();
                   context_.turn_allowed_tools.clear();
                   context_.turn_granted_rules.clear();
                   context_.turn_plan = false;
                   context_.turn_model.clear();
                   context_.open_step.reset();
                   context_.pending_approvals.clear();
                 },
                 [&](const StepStarted& e) { context_.open_step = e.step; },
                 [&](const StepEnded&) { context_.open_step.reset(); },
                 [&](const AssistantMessage& e) {
                   for (const auto& block : e.content) {
                     if (const auto* call = std::get_if<content::ToolCallBlock>(&block)) {
                       context_.unpaired_calls.push_back(call->id);
                     }
                   }
                   add_message(event.seq, content::Message{.role = content::Role::assistant,
                                                           .content = e.content});
                 },
                 [&](const ToolResult& e) {
                   std::erase(context_.unpaired_calls, e.call_id);
                   // An answered call needs no decision any more (abort skipped it).
                   std::erase_if(context_.pending_approvals, [&](const PendingApproval& p) {
                     return p.request.call_id == e.call_id;
                   });
                   // Results answering one assistant message travel in one message.
                   if (!context_.messages.empty() &&
                       context_.messages.back().role == content::Role::tool) {
                     context_.messages.back().content.emplace_back(to_result_block(e));
                   } else {
                     add_message(event.seq, content::Message{.role = content::Role::tool,
                                                             .content = {to_result_block(e)}});
                   }
                 },
                 [&](const UsageRecorded& e) {
                   context_.usage += e.usage;
                   context_.usage_by_model[e.model] += e.usage;
                 },
                 [&](const ModelChanged& e) {
                   if (!e.provider.empty()) context_.provider = e.provider;
                   context_.model = e.model;
                 },
                 [&](const Paused&) { context_.paused = true; },
                 [&](const Resumed&) { context_.paused = false; },
                 [&](const Compacted& e) { compact(e); },
                 [&](const ErrorOccurred&) {},
                 [&](const Recovered&) {},
                 [&](const ApprovalRequested& e) {
                   context_.pending_approvals.push_back({.seq = event.seq, .request = e});
                 },
                 [&](const ApprovalDecided& e) {
                   std::erase_if(context_.pending_approvals, [&](const PendingApproval& p) {
                     return p.request.approval_id == e.approval_id;
                   });
                   if (e.decision == ApprovalDecision::allow && e.scope != ApprovalScope::once &&
                       !e.rule.empty()) {
                     context_.granted_rules.push_back(e.rule);
                   }
                 },
                 [&](const PermissionModeChanged& e) { context_.permission_mode = e.mode; },
                 [&](const HookRan&) {},
                 [&](const GoalSet& e) { context_.goal = e.goal; },
                 [&](const CommandOutput&) {},
                 [&](const UnknownEvent&) {},
             },
             event.body);
}

Context rebuild_context(const std::vector<Event>& events) {
  ContextBuilder builder;
  for (const auto& event : events) builder.apply(event);
  return builder.take();
}

}  // namespace ava::session
