// Tool dispatch: the calls of one model response run one at a time, in the
// model's order; every call gets exactly one result, also when aborted.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "core.hpp"

namespace ava::agent {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

session::ToolResult error_result(const std::string& turn_id, int step,
                                 const llm::ToolCallBlock& call, session::ToolStatus status,
                                 std::string text) {
  return session::ToolResult{.turn_id = turn_id,
                             .step = step,
                             .call_id = call.id,
                             .tool_name = call.name,
                             .status = status,
                             .content = {llm::TextBlock{std::move(text)}},
                             .details = nullptr};
}

std::string first_line(const std::string& text, std::size_t limit) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > limit) line = line.substr(0, limit) + "…";
  return line;
}

}  // namespace

std::vector<llm::ToolCallBlock> tool_calls_of(const llm::Message& message) {
  std::vector<llm::ToolCallBlock> calls;
  for (const auto& block : message.content) {
    if (const auto* call = std::get_if<llm::ToolCallBlock>(&block)) calls.push_back(*call);
  }
  return calls;
}

std::string activity_label(const llm::ToolCallBlock& call) {
  const json arguments = base::parse_json(call.arguments).value_or(json());
  auto field = [&](const char* name) -> std::string {
    if (!arguments.is_object()) return {};
    const auto it = arguments.find(name);
    return it != arguments.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (call.name == "bash") return "Running bash: " + first_line(field("command"), 80);
  if (call.name == "edit") return "Editing " + field("path");
  if (call.name == "write") return "Writing " + field("path");
  if (call.name == "read") return "Reading " + field("path");
  if (call.name == "skill") return "Loading skill " + field("name");
  if (call.name.starts_with("mcp__")) {
    const auto rest = call.name.substr(5);
    const auto split = rest.find("__");
    if (split != std::string::npos) {
      return fmt::format("Calling {} on {}", rest.substr(split + 2), rest.substr(0, split));
    }
  }
  return "Running " + call.name;
}

asio::awaitable<ToolsOutcome> AgentCore::run_tools(const std::string& turn_id, int step,
                                                   const std::vector<llm::ToolCallBlock>& calls) {
  bool aborted = false;
  for (std::size_t i = 0; i < calls.size();) {
    if (!aborted) {
      std::lock_guard lock(mutex_);
      aborted = abort_requested_;  // closing aborts too
    }
    // A run of `task` calls runs at once; any other call on its own.
    std::size_t run = 1;
    if (!aborted && calls[i].name == "task" && options_.subagents) {
      while (i + run < calls.size() && calls[i + run].name == "task") ++run;
    }
    std::vector<session::ToolResult> results;
    if (aborted) {
      results.push_back(
          error_result(turn_id, step, calls[i], session::ToolStatus::skipped,
                       "Skipped: the user aborted the turn before this tool call started."));
    } else if (run > 1) {
      const std::vector<llm::ToolCallBlock> group(
          calls.begin() + static_cast<std::ptrdiff_t>(i),
          calls.begin() + static_cast<std::ptrdiff_t>(i + run));
      auto running = run_tasks(turn_id, step, group);
      auto done = co_await std::move(running);
      if (!done) co_return ToolsOutcome::suspended;
      results = std::move(*done);
    } else {
      // (Not a conditional expression: g++ 12 mishandles co_await inside one.)
      std::optional<session::ToolResult> result = co_await run_tool(turn_id, step, calls[i]);
      if (!result) co_return ToolsOutcome::suspended;
      results.push_back(std::move(*result));
    }
    i += results.size();
    for (auto& result : results) {
      if (result.status == session::ToolStatus::interrupted ||
          result.status == session::ToolStatus::skipped) {
        aborted = true;
      }
      if (auto appended = append({std::move(result)}); !appended) co_return ToolsOutcome::aborted;
    }
  }
  co_return aborted ? ToolsOutcome::aborted : ToolsOutcome::completed;
}

asio::awaitable<Prepared> AgentCore::prepare_call(const std::string& turn_id, int step,
                                                  const llm::ToolCallBlock& call) {
  Prepared prepared{.label = activity_label(call)};
  {
    std::lock_guard lock(mutex_);
    activity_ = prepared.label;
  }
  emit_live(ToolActivity{
      .turn_id = turn_id, .call_id = call.id, .tool_name = call.name, .label = prepared.label});

  tool::Tool* tool = tools_.find(call.name);
  bool offered = true;
  std::vector<std::string> allowed;
  {
    std::lock_guard lock(mutex_);
    offered = offered_in_turn(context_.context(), call.name);
    allowed = context_.context().turn_allowed_tools;
  }
  if (tool && !offered) {
    prepared.result =
        error_result(turn_id, step, call, session::ToolStatus::error,
                     fmt::format("{} is not available in this turn: the slash command allows "
                                 "only {}.",
                                 call.name, fmt::join(allowed, ", ")));
    co_return prepared;
  }
  if (!tool) {
    std::string names;
    for (const auto& known : tools_.tools()) {
      names += (names.empty() ? "" : ", ") + known->spec().name;
    }
    prepared.result =
        error_result(turn_id, step, call, session::ToolStatus::error,
                     fmt::format("Unknown tool {}. Available tools: {}.", call.name, names));
    co_return prepared;
  }
  // The model's JSON is untrusted like any peer's: nesting is bounded.
  auto parsed = base::parse_json(call.arguments.empty() ? std::string_view("{}") : call.arguments);
  if (!parsed || !parsed->is_object()) {
    prepared.result =
        error_result(turn_id, step, call, session::ToolStatus::error,
                     fmt::format("The arguments of {} are not a JSON object{}: {}", call.name,
                                 parsed ? "" : " (" + parsed.error().message + ")",
                                 first_line(call.arguments, 200)));
    co_return prepared;
  }
  prepared.tool = tool;
  prepared.arguments = std::move(*parsed);

  auto gating = permission_gate(turn_id, step, call, *tool, prepared.arguments);
  Gate gate = co_await std::move(gating);
  if (gate.kind == Gate::suspend) {
    prepared.suspended = true;
  } else if (gate.kind == Gate::refuse) {
    auto refused = error_result(turn_id, step, call, gate.status, std::move(gate.text));
    refused.details = std::move(gate.details);
    prepared.result = std::move(refused);
  }
  co_return prepared;
}

asio::awaitable<session::ToolResult> AgentCore::finish_call(const std::string& turn_id, int step,
                                                            const llm::ToolCallBlock& call,
                                                            const Prepared& prepared,
                                                            Result<tool::ToolResult> outcome) {
  bool interrupted = false;
  {
    std::lock_guard lock(mutex_);
    interrupted = abort_requested_;
  }
  if (!outcome) {
    const auto status = interrupted ? session::ToolStatus::interrupted : session::ToolStatus::error;
    co_return error_result(turn_id, step, call, status,
                           fmt::format("{} failed: {}", call.name, outcome.error().message));
  }
  session::ToolResult result{
      .turn_id = turn_id,
      .step = step,
      .call_id = call.id,
      .tool_name = call.name,
      .status = outcome->is_error ? session::ToolStatus::error : session::ToolStatus::ok,
      .details = outcome->details.empty() ? json() : outcome->details};
  // Tools return the provider-neutral blocks the log records: no mapping.
  result.content = std::move(outcome->content);
  if (interrupted) {
    result.status = session::ToolStatus::interrupted;
    result.content.emplace_back(
        llm::TextBlock{"[Interrupted: the user aborted the turn while this tool was running.]"});
  } else if (has_hooks(policy::HookEvent::post_tool_use, call.name)) {
    // PostToolUse: a hook's block reaches the model with the result.
    std::string text;
    for (const auto& part : result.content) {
      if (const auto* block = std::get_if<llm::TextBlock>(&part)) text += block->text;
    }
    json input{{"tool_name", policy::hook_tool_name(call.name)},
               {"tool_input", prepared.arguments},
               {"tool_response",
                {{"content", std::move(text)},
                 {"is_error", result.status == session::ToolStatus::error},
                 {"details", result.details}}}};
    auto hooking =
        run_hooks(policy::HookEvent::post_tool_use, call.name, std::move(input), turn_id, call.id);
    const HookOutcome hooked = co_await std::move(hooking);
    if (hooked.outcome == "block") {
      result.content.emplace_back(llm::TextBlock{"[PostToolUse hook: " + hooked.reason + "]"});
    }
  }
  co_return result;
}

void AgentCore::end_activity(const std::string& turn_id, const llm::ToolCallBlock& call,
                             const std::string& label) {
  {
    std::lock_guard lock(mutex_);
    activity_.clear();
  }
  emit_live(ToolActivity{.turn_id = turn_id,
                         .call_id = call.id,
                         .tool_name = call.name,
                         .label = label,
                         .finished = true});
}

asio::awaitable<std::optional<session::ToolResult>> AgentCore::run_tool(
    const std::string& turn_id, int step, const llm::ToolCallBlock& call) {
  Prepared prepared = co_await prepare_call(turn_id, step, call);
  if (prepared.suspended) {
    end_activity(turn_id, call, prepared.label);
    co_return std::nullopt;
  }
  if (prepared.result) {
    end_activity(turn_id, call, prepared.label);
    co_return std::move(prepared.result);
  }
  tool::ToolContext context = tool_context_;
  context.call_id = call.id;
  auto invoking = cancellable(tool::invoke(*prepared.tool, prepared.arguments, context));
  Result<tool::ToolResult> outcome = co_await std::move(invoking);
  auto finishing = finish_call(turn_id, step, call, prepared, std::move(outcome));
  session::ToolResult result = co_await std::move(finishing);
  end_activity(turn_id, call, prepared.label);
  co_return result;
}

asio::awaitable<std::optional<std::vector<session::ToolResult>>> AgentCore::run_tasks(
    const std::string& turn_id, int step, const std::vector<llm::ToolCallBlock>& calls) {
  // Asked one at a time (a person answers approvals in order), then run.
  std::vector<Prepared> prepared;
  for (const auto& call : calls) {
    prepared.push_back(co_await prepare_call(turn_id, step, call));
    if (prepared.back().suspended) co_return std::nullopt;  // nothing of the group ran
  }
  const std::size_t count = calls.size();
  std::vector<std::optional<Result<tool::ToolResult>>> outcomes(count);
  std::vector<tool::ToolContext> contexts(count, tool_context_);
  std::vector<std::size_t> waiting;
  for (std::size_t i = 0; i < count; ++i) {
    contexts[i].call_id = calls[i].id;
    if (!prepared[i].result) waiting.push_back(i);
  }
  // Each finished child starts the next (at most max_parallel_subagents at
  // once); the last one wakes this coroutine. All on the strand.
  asio::steady_timer all_done(strand_, asio::steady_timer::time_point::max());
  std::size_t remaining = waiting.size();
  std::size_t next = 0;
  std::function<void()> start_next = [&] {
    const std::size_t i = waiting[next++];
    asio::co_spawn(
        strand_, tool::invoke(*prepared[i].tool, prepared[i].arguments, contexts[i]),
        asio::bind_executor(
            strand_, [&, i](const std::exception_ptr& error, Result<tool::ToolResult> outcome) {
              outcomes[i] =
                  error ? Result<tool::ToolResult>(fail(ErrorCode::internal, "the subagent failed"))
                        : std::move(outcome);
              if (next < waiting.size()) start_next();
              if (--remaining == 0) all_done.cancel();
            }));
  };
  const std::size_t parallel =
      std::min<std::size_t>(waiting.size(), std::max(1, options_.max_parallel_subagents));
  for (std::size_t started = 0; started < parallel; ++started) start_next();
  while (remaining > 0) {
    all_done.expires_at(asio::steady_timer::time_point::max());
    co_await all_done.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  std::vector<session::ToolResult> results;
  for (std::size_t i = 0; i < count; ++i) {
    if (prepared[i].result) {
      results.push_back(std::move(*prepared[i].result));
    } else {
      auto finishing = finish_call(turn_id, step, calls[i], prepared[i], std::move(*outcomes[i]));
      results.push_back(co_await std::move(finishing));
    }
    end_activity(turn_id, calls[i], prepared[i].label);
  }
  co_return results;
}

}  // namespace ava::agent
