// Hooks: the user's commands around tool calls and lifecycle points, in
// Claude Code's format (docs/permissions.md). Each runs by /bin/sh -c in the
// project folder, in a process group of its own with its timeout, the event
// as JSON on stdin; what it answers is read by policy::read_hook_reply. A
// hook that crashes, times out or prints nonsense blocks nothing: the turn
// goes on, and its HookRan event says what happened.
#include <chrono>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "ava/proc/run.hpp"
#include "core.hpp"

namespace ava::agent {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr std::size_t max_recorded_output = 4000;
constexpr std::size_t max_hook_capture = 64 * 1024;

std::string bounded(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  return std::string(base::utf8::truncate(text, limit)) + "…";
}

}  // namespace

bool AgentCore::has_hooks(policy::HookEvent event, std::string_view tool) const {
  return permissions_ && !permissions_->hooks.empty() &&
         !permissions_->hooks.matching(event, tool).empty();
}

asio::awaitable<HookOutcome> AgentCore::run_hooks(policy::HookEvent event, std::string tool,
                                                  json input, std::string turn_id,
                                                  std::string call_id) {
  HookOutcome combined;
  if (!has_hooks(event, tool)) co_return combined;
  const std::filesystem::path project =
      permissions_->project.empty() ? tool_context_.cwd : permissions_->project;
  input["session_id"] = session_id_;
  input["transcript_path"] = log_->path().string();
  input["cwd"] = tool_context_.cwd.string();
  input["hook_event_name"] = std::string(policy::to_string(event));

  // Named, not a temporary of the range-for: g++ 12 ends such a temporary's
  // life at the loop's first suspension.
  const std::vector<const policy::HookCommand*> hooks = permissions_->hooks.matching(event, tool);
  for (const policy::HookCommand* hook : hooks) {
    proc::RunOptions run;
    run.spawn.argv = {"/bin/sh", "-c", hook->command};
    run.spawn.cwd = project;
    run.spawn.env = {{"AVA_PROJECT_DIR", project.string()},
                     {"CLAUDE_PROJECT_DIR", project.string()}};
    run.spawn.stdin_mode = proc::StdinMode::pipe;
    run.stdin_bytes = input.dump(-1, ' ', false, json::error_handler_t::replace);
    run.timeout = hook->timeout;
    run.capture_limit = max_hook_capture;
    const auto started = std::chrono::steady_clock::now();
    auto running = cancellable(proc::run(std::move(run)));
    Result<proc::RunResult> ran = co_await std::move(running);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);

    policy::HookReply reply;
    std::int64_t exit_code = -1;
    std::string output;
    if (!ran) {
      reply = {.outcome = "error", .reason = "could not run: " + ran.error().message};
    } else if (ran->cancelled) {
      reply = {.outcome = "error", .reason = "stopped: the turn was aborted"};
    } else if (ran->status.signal != 0 && !ran->timed_out) {
      reply = {.outcome = "error", .reason = ran->status.describe()};
    } else {
      exit_code = ran->status.code;
      reply = policy::read_hook_reply(event, ran->status.code, ran->timed_out, ran->out.text,
                                      ran->err.text);
    }
    if (ran) {
      output = ran->out.text;
      if (!ran->err.text.empty()) output += (output.empty() ? "" : "\n") + ran->err.text;
    }
    if (reply.updated_input && reply.outcome == "ok") reply.outcome = "rewrite";
    (void)append({session::HookRan{.hook = std::string(policy::to_string(event)),
                                   .command = bounded(hook->command, 500),
                                   .turn_id = turn_id,
                                   .call_id = call_id,
                                   .duration_ms = took.count(),
                                   .outcome = reply.outcome,
                                   .exit_code = exit_code,
                                   .reason = reply.reason,
                                   .output = bounded(std::move(output), max_recorded_output)}});

    if (!reply.additional_context.empty()) {
      if (!combined.additional_context.empty()) combined.additional_context += "\n\n";
      combined.additional_context += reply.additional_context;
    }
    if (reply.updated_input) {
      input["tool_input"] = *reply.updated_input;
      combined.updated_input = std::move(reply.updated_input);
    }
    if (reply.outcome == "block" || reply.outcome == "deny") {
      combined.outcome = reply.outcome;
      combined.reason = std::move(reply.reason);
      break;
    }
    if (reply.outcome == "ask" || (reply.outcome == "allow" && combined.outcome != "ask")) {
      combined.outcome = reply.outcome;
      combined.reason = std::move(reply.reason);
    }
    bool aborting = false;
    {
      std::lock_guard lock(mutex_);
      aborting = abort_requested_;
    }
    if (aborting) break;
  }
  co_return combined;
}

}  // namespace ava::agent
