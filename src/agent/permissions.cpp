// The permission check before every tool call (docs/permissions.md): the
// policy decides, and a call that needs a person is recorded as an
// approval_requested event and waits, on the driver's strand, for the
// approval_decided event that answers it.

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/id.hpp"
#include "core.hpp"

namespace ava::agent {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

std::optional<std::string> string_argument(const json& arguments, const char* name) {
  const auto it = arguments.find(name);
  if (it == arguments.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

json permission_details(std::string_view verdict, const std::string& reason,
                        const std::optional<std::string>& rule) {
  json permission{{"verdict", verdict}, {"reason", reason}};
  if (rule) permission["rule"] = *rule;
  return json{{"permission", std::move(permission)}};
}

}  // namespace

policy::ToolCall describe_call(const tool::ToolSpec& spec, const json& arguments) {
  policy::ToolCall call{.tool = spec.name};
  if (spec.name == "bash") {
    call.category = policy::Category::execute;
    call.command = string_argument(arguments, "command");
    return call;
  }
  call.path = string_argument(arguments, "path");
  if (spec.read_only) {
    call.category = policy::Category::read;
    return call;
  }
  switch (spec.category) {
    case tool::Category::fs: call.category = policy::Category::edit; break;
    case tool::Category::web: call.category = policy::Category::network; break;
    case tool::Category::mcp: call.category = policy::Category::mcp; break;
    // A shell other than bash, or a tool whose effects are unknown: treated
    // as running something.
    case tool::Category::shell:
    case tool::Category::other: call.category = policy::Category::execute; break;
  }
  if (spec.name.starts_with("mcp__")) call.category = policy::Category::mcp;
  return call;
}

policy::ToolCall AgentCore::describe(const tool::Tool& tool, const json& arguments) const {
  if (tool.spec().name == "memory" && options_.memory) {
    return describe_memory_call(arguments, memory_places());
  }
  if (tool.spec().name == "task" && options_.subagents) {
    // A read-only subagent (explore, plan) changes nothing: a read. Any other
    // runs tools, under these same permissions.
    const auto name = string_argument(arguments, "agent").value_or("");
    const auto agent = std::ranges::find(agents_, name, &prompts::AgentDefinition::name);
    const bool reads = agent != agents_.end() && agent->read_only;
    return {.tool = "task", .category = reads ? policy::Category::read : policy::Category::execute};
  }
  return describe_call(tool.spec(), arguments);
}

bool AgentCore::sandbox_unavailable() const {
  return permissions_ && permissions_->sandbox.mode != proc::SandboxMode::off &&
         !proc::sandbox_support().filesystem();
}

policy::RuleSet AgentCore::effective_rules() const {
  policy::RuleSet rules = permissions_->rules;
  const auto& context = context_.context();
  if (!context.permission_mode.empty()) {
    if (auto mode = policy::parse_mode(context.permission_mode)) rules.mode = *mode;
  }
  for (const auto& text : context.granted_rules) {
    if (auto rule = policy::parse_rule(text)) rules.allow.push_back(std::move(*rule));
  }
  // A slash command's allowed-tools run unasked in its turn (Claude Code's
  // meaning); deny rules and plan mode still win.
  for (const auto& text : context.turn_granted_rules) {
    if (auto rule = policy::parse_rule(text)) rules.allow.push_back(std::move(*rule));
  }
  // `auto` runs commands only inside the sandbox it was promised.
  if (rules.mode == policy::Mode::auto_ && sandbox_unavailable()) {
    rules.mode = policy::Mode::accept_edits;
  }
  return rules;
}

std::string AgentCore::effective_mode() const {
  if (!permissions_) return {};
  return std::string(policy::to_string(effective_rules().mode));
}

policy::Places AgentCore::places() const {
  return {.project = permissions_->project.empty() ? tool_context_.cwd : permissions_->project,
          .cwd = tool_context_.cwd,
          .home = permissions_->home};
}

asio::awaitable<Gate> AgentCore::permission_gate(const std::string& turn_id, int step,
                                                 const llm::ToolCallBlock& call,
                                                 const tool::Tool& tool, json& arguments) {
  // A call whose approval was asked before a restart waits for that one.
  std::optional<session::ApprovalRequested> pending;
  {
    std::lock_guard lock(mutex_);
    for (const auto& waiting : context_.context().pending_approvals) {
      if (waiting.request.call_id == call.id) pending = waiting.request;
    }
    // Or answered already, before this call was reached again.
    if (auto answered = answered_requests_.find(call.id);
        !pending && answered != answered_requests_.end()) {
      pending = answered->second;
    }
  }
  bool plan_turn = false;
  {
    std::lock_guard lock(mutex_);
    plan_turn = context_.context().turn_plan;
  }
  if (!pending && !permissions_ && plan_turn) {
    // A /plan turn is read-only even for an agent without permission checks.
    const policy::ToolCall described = describe(tool, arguments);
    const policy::Decision decision =
        policy::evaluate(policy::RuleSet{.mode = policy::Mode::plan}, described,
                         {.project = tool_context_.cwd, .cwd = tool_context_.cwd});
    if (decision.verdict == policy::Verdict::allow) co_return Gate{};
    co_return Gate{.kind = Gate::refuse,
                   .text = fmt::format("Not run: {}.", decision.reason),
                   .details = permission_details("deny", decision.reason, decision.rule)};
  }
  if (!pending) {
    if (!permissions_) co_return Gate{};
    // PreToolUse hooks first: a veto ends it; allow / ask weigh in below; a
    // rewritten input is what is checked, asked about and run.
    std::string hook_says;
    if (has_hooks(policy::HookEvent::pre_tool_use, call.name)) {
      json input{{"tool_name", policy::hook_tool_name(call.name)}, {"tool_input", arguments}};
      auto hooking =
          run_hooks(policy::HookEvent::pre_tool_use, call.name, std::move(input), turn_id, call.id);
      HookOutcome hooked = co_await std::move(hooking);
      if (hooked.updated_input) arguments = std::move(*hooked.updated_input);
      if (hooked.outcome == "block" || hooked.outcome == "deny") {
        const std::string why = hooked.reason.empty() ? "no reason given" : hooked.reason;
        co_return Gate{
            .kind = Gate::refuse,
            .text = fmt::format("Blocked by a PreToolUse hook: {}. The call did not run.", why),
            .details = permission_details("deny", "a PreToolUse hook: " + why, std::nullopt)};
      }
      hook_says = hooked.outcome;
      if (hook_says == "ask" && !hooked.reason.empty()) hook_says += ": " + hooked.reason;
    }
    const policy::ToolCall described = describe(tool, arguments);
    policy::RuleSet rules;
    {
      std::lock_guard lock(mutex_);
      rules = effective_rules();
    }
    if (plan_turn) rules.mode = policy::Mode::plan;
    const policy::Places where = places();
    policy::Decision decision = policy::evaluate(rules, described, where);
    // A hook's allow skips asking, never a deny rule or plan mode; its ask
    // makes a person look even where a rule allows.
    if (hook_says == "allow" && decision.verdict == policy::Verdict::ask) co_return Gate{};
    if (hook_says.starts_with("ask") && decision.verdict == policy::Verdict::allow) {
      decision = {.verdict = policy::Verdict::ask,
                  .reason = "a PreToolUse hook asks" + hook_says.substr(3),
                  .rule = std::nullopt};
    }
    if (decision.verdict == policy::Verdict::allow) co_return Gate{};
    if (decision.verdict == policy::Verdict::deny) {
      co_return Gate{.kind = Gate::refuse,
                     .text = fmt::format("Permission denied: {}. The call did not run; do not "
                                         "retry it as it is.",
                                         decision.reason),
                     .details = permission_details("deny", decision.reason, decision.rule)};
    }
    if (!permissions_->can_ask) {
      co_return Gate{
          .kind = Gate::refuse,
          .text = fmt::format(
              "Not run: this call needs a person's approval ({}), and nobody can approve calls "
              "in this run. Do without it, or tell the user which permission would let it run.",
              decision.reason),
          .details = permission_details("ask", decision.reason, decision.rule)};
    }
    pending =
        session::ApprovalRequested{.approval_id = base::new_id(),
                                   .turn_id = turn_id,
                                   .step = step,
                                   .call_id = call.id,
                                   .tool_name = call.name,
                                   .arguments = arguments,
                                   .category = std::string(policy::to_string(described.category)),
                                   .reason = decision.reason,
                                   .rule = decision.rule.value_or(""),
                                   .suggested_rules = policy::suggest_rules(described, where)};
    // The state says `waiting` before the request reaches subscribers, so a
    // client that sees the request and then asks for the status never finds
    // the driver still `running`.
    set_state(DriverState::waiting);
    if (auto asked = append({*pending}); !asked) {
      set_state(DriverState::running);
      co_return Gate{
          .kind = Gate::refuse,
          .text = "Not run: the approval request could not be recorded: " + asked.error().message};
    }
  } else if (permissions_ && permissions_->can_ask && pending->arguments.is_object()) {
    // What the person is asked about is what runs: the request holds the
    // arguments after any PreToolUse rewrite, which is not run again.
    arguments = pending->arguments;
  } else if (!permissions_ || !permissions_->can_ask) {
    // Reopened where nobody can answer: the wait ends here, as a denial.
    const std::string why = "nobody can approve calls in this run";
    (void)append({session::ApprovalDecided{.approval_id = pending->approval_id,
                                           .call_id = call.id,
                                           .decision = session::ApprovalDecision::deny,
                                           .message = why}});
    co_return Gate{.kind = Gate::refuse,
                   .text = "Not run: this call waited for a person's approval, and " + why + ".",
                   .details = permission_details("ask", pending->reason, std::nullopt)};
  }

  set_state(DriverState::waiting);
  auto waiting = await_decision(pending->approval_id);
  const std::optional<session::ApprovalDecided> decided = co_await std::move(waiting);
  {
    std::lock_guard lock(mutex_);
    answered_requests_.erase(call.id);
  }
  bool closing = false;
  bool pausing = false;
  {
    std::lock_guard lock(mutex_);
    closing = close_requested_;
    pausing = pause_requested_;
  }
  if (!decided) {
    if (closing) co_return Gate{.kind = Gate::suspend};
    co_return Gate{.kind = Gate::refuse,
                   .text =
                       "Skipped: the user aborted the turn while this call waited for "
                       "approval.",
                   .status = session::ToolStatus::skipped};
  }
  set_state(pausing ? DriverState::pausing : DriverState::running);
  if (decided->decision == session::ApprovalDecision::allow) co_return Gate{};
  std::string text = "Denied by the user: the call did not run.";
  if (!decided->message.empty()) text += " The user says: " + decided->message;
  co_return Gate{.kind = Gate::refuse,
                 .text = std::move(text),
                 .details = permission_details("deny", "denied by the user", std::nullopt)};
}

asio::awaitable<std::optional<session::ApprovalDecided>> AgentCore::await_decision(
    const std::string& approval_id) {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (auto it = decisions_.find(approval_id); it != decisions_.end()) {
        auto decided = std::move(it->second);
        decisions_.erase(it);
        co_return decided;
      }
      if (abort_requested_ || close_requested_) co_return std::nullopt;
    }
    // decide(), abort and close cancel this timer on the strand; checking
    // and starting the wait happen without a suspension between them.
    approval_timer_.expires_at(asio::steady_timer::time_point::max());
    co_await approval_timer_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

Result<void> AgentCore::decide(const std::string& approval_id, const ApprovalAnswer& answer) {
  // One decision at a time: the check and the append below are one step.
  std::lock_guard deciding(decide_mutex_);
  session::ApprovalRequested request;
  {
    std::lock_guard lock(mutex_);
    if (close_requested_) return fail(ErrorCode::conflict, "the agent is closed");
    bool found = false;
    for (const auto& waiting : context_.context().pending_approvals) {
      if (waiting.request.approval_id == approval_id) {
        request = waiting.request;
        found = true;
      }
    }
    if (!found) {
      return fail(ErrorCode::conflict, "no pending approval " + approval_id.substr(0, 64) +
                                           " (unknown, already decided, or its call was answered)");
    }
  }
  session::ApprovalDecided decided{.approval_id = approval_id,
                                   .call_id = request.call_id,
                                   .decision = answer.decision,
                                   .scope = answer.scope,
                                   .message = answer.message.substr(0, 4096)};
  if (answer.decision == session::ApprovalDecision::allow &&
      answer.scope != session::ApprovalScope::once) {
    decided.rule = answer.rule;
    if (decided.rule.empty() && !request.suggested_rules.empty()) {
      decided.rule = request.suggested_rules.front();
    }
    if (decided.rule.empty()) {
      return fail(ErrorCode::invalid_argument,
                  "no rule to grant for this call: name one, or allow it once");
    }
    AVA_TRY_VOID(policy::parse_rule(decided.rule));
  } else {
    decided.scope = session::ApprovalScope::once;  // a denial is for this call only
  }
  AVA_TRY_VOID(append({std::move(decided)}));
  asio::post(strand_, [self = shared_from_this()] { self->approval_timer_.cancel(); });
  return {};
}

Result<void> AgentCore::set_permission_mode(policy::Mode mode) {
  if (!permissions_) {
    return fail(ErrorCode::invalid_argument, "this agent runs without permission checks");
  }
  {
    std::lock_guard lock(mutex_);
    if (close_requested_) return fail(ErrorCode::conflict, "the agent is closed");
  }
  AVA_TRY_VOID(append({session::PermissionModeChanged{std::string(policy::to_string(mode))}}));
  return {};
}

std::optional<PermissionOptions> AgentCore::permissions() const {
  if (!permissions_) return std::nullopt;
  PermissionOptions current = *permissions_;
  std::lock_guard lock(mutex_);
  current.rules = effective_rules();
  return current;
}

}  // namespace ava::agent
