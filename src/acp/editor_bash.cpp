// bash in the editor's terminal: terminal/create runs the command (through
// `ava sandbox-exec`, so the sandbox and the scrubbed environment hold as
// for the built-in bash), the call's report embeds the terminal once the
// editor knows the call, and the output is read back for the model.

#include "editor_bash.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ava/base/json.hpp"
#include "ava/base/utf8.hpp"
#include "ava/proc/environment.hpp"
#include "ava/proc/sandbox_exec.hpp"
#include "ava/tool/registry.hpp"

namespace ava::acp {

namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr auto request_timeout = std::chrono::seconds(30);
// After the command's own timeout, how long the editor gets to report the
// exit before the terminal is killed.
constexpr auto exit_grace = std::chrono::seconds(5);

struct Exit {
  std::optional<int> code;
  std::string signal;
};

Exit exit_of(const json& status) {
  Exit out;
  if (const auto code = base::json_value(status, "exitCode", json()); code.is_number_integer()) {
    out.code = code.get<int>();
  }
  out.signal = base::json_value(status, "signal", std::string());
  return out;
}

class EditorBash final : public tool::Tool {
 public:
  EditorBash(std::shared_ptr<EditorLink> link, std::filesystem::path ava_executable)
      : link_(std::move(link)),
        ava_executable_(std::move(ava_executable)),
        builtin_(tool::make_bash_tool()) {}

  const tool::ToolSpec& spec() const override { return builtin_->spec(); }

  asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                    tool::ToolContext& context) override {
    const auto& limits = context.limits;
    auto timeout = std::chrono::seconds(
        arguments.value("timeout", static_cast<long long>(limits.bash_timeout.count())));
    timeout = std::clamp(timeout, std::chrono::seconds(1), limits.bash_timeout_max);
    const auto command = arguments.at("command").get<std::string>();
    const auto output_limit = std::min(limits.process_capture, limits.tool_output);

    json create{{"command", ava_executable_.string()},
                {"args", proc::sandbox_exec_arguments(context.sandbox, proc::kept_variables(),
                                                      {"bash", "-c", command})},
                {"cwd", context.cwd.string()},
                {"outputByteLimit", output_limit}};
    auto created = co_await link_->call("terminal/create", std::move(create), request_timeout);
    const auto terminal_id =
        created ? base::json_value(*created, "terminalId", std::string()) : std::string();
    if (terminal_id.empty()) {
      co_return tool::ToolResult::error(
          fmt::format("Could not start the command in the editor's terminal: {}",
                      created ? "its answer has no terminalId" : created.error().message));
    }
    const json terminal_ref{{"terminalId", terminal_id}};
    // The terminal shows in the call's report as soon as the editor knows
    // the call (the bridge reports it from the conversation's events).
    link_->after_announced(context.call_id, [link = link_, call_id = context.call_id, terminal_id] {
      link->update(
          {{"sessionUpdate", "tool_call_update"},
           {"toolCallId", call_id},
           {"status", "in_progress"},
           {"content", json::array({{{"type", "terminal"}, {"terminalId", terminal_id}}})}});
    });

    const auto started = std::chrono::steady_clock::now();
    auto waited = co_await link_->call(
        "terminal/wait_for_exit", terminal_ref,
        std::chrono::duration_cast<std::chrono::milliseconds>(timeout + exit_grace));
    const bool cancelled = !waited && waited.error().code == ErrorCode::cancelled;
    const bool timed_out = !waited && waited.error().code == ErrorCode::timeout;
    if (!waited) (void)co_await link_->call("terminal/kill", terminal_ref, request_timeout);
    auto output = co_await link_->call("terminal/output", terminal_ref, request_timeout);
    const auto duration = std::chrono::steady_clock::now() - started;
    // Released once shown: an editor keeps a released terminal's output
    // in the calls that embed it.
    link_->after_announced(context.call_id, [link = link_, terminal_ref] {
      link->send("terminal/release", terminal_ref);
    });

    Exit exit;
    if (waited) exit = exit_of(*waited);
    std::string text;
    bool truncated = false;
    if (output) {
      text = base::utf8::make_valid(base::json_value(*output, "output", std::string()));
      truncated = base::json_value(*output, "truncated", false);
      if (!waited) exit = exit_of(base::json_value(*output, "exitStatus", json::object()));
    }
    if (text.empty()) text = "(no output)";
    if (!text.ends_with('\n')) text += '\n';
    if (truncated) {
      text += fmt::format("[output truncated: the editor kept the last {} bytes]\n", output_limit);
    }
    if (!output)
      text += fmt::format("[the output could not be read: {}]\n", output.error().message);
    if (cancelled) {
      text += "[cancelled; the command was killed]";
    } else if (timed_out) {
      text += fmt::format("[timed out after {}s; the command was killed]", timeout.count());
    } else if (!waited) {
      text += fmt::format("[the editor did not report the exit: {}]", waited.error().message);
    } else if (!exit.signal.empty()) {
      text += fmt::format("[killed by signal {}]", exit.signal);
    } else {
      text += fmt::format("[exit code {}]", exit.code.value_or(-1));
    }
    const bool failed = !waited || !exit.signal.empty() || exit.code.value_or(-1) != 0;
    json details{
        {"exit_code", exit.code ? json(*exit.code) : json()},
        {"signal", exit.signal.empty() ? json() : json(exit.signal)},
        {"timed_out", timed_out},
        {"cancelled", cancelled},
        {"duration_ms", std::chrono::duration_cast<std::chrono::milliseconds>(duration).count()},
        {"terminal_id", terminal_id}};
    if (context.sandbox.mode != proc::SandboxMode::off) {
      details["sandbox"] = {{"mode", proc::to_string(context.sandbox.mode)},
                            {"network", context.sandbox.network}};
    }
    co_return failed ? tool::ToolResult::error(std::move(text), std::move(details))
                     : tool::ToolResult::text(std::move(text), std::move(details));
  }

 private:
  std::shared_ptr<EditorLink> link_;
  std::filesystem::path ava_executable_;
  std::unique_ptr<tool::Tool> builtin_;
};

}  // namespace

std::unique_ptr<tool::Tool> make_editor_bash(std::shared_ptr<EditorLink> link,
                                             std::filesystem::path ava_executable) {
  return std::make_unique<EditorBash>(std::move(link), std::move(ava_executable));
}

}  // namespace ava::acp
