#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"
#include "ava/proc/run.hpp"
#include "ava/tool/registry.hpp"
#include "ava/tool/text.hpp"

namespace ava::tool {
namespace {

using nlohmann::json;

std::string status_line(const proc::RunResult& result, std::chrono::seconds timeout) {
  if (result.cancelled) return "[cancelled; the process group was terminated]";
  if (result.timed_out) {
    return fmt::format("[timed out after {}s; the process group was terminated]", timeout.count());
  }
  return fmt::format("[{}]", result.status.describe());
}

std::string sandbox_note(const proc::Sandbox& sandbox) {
  std::string folders;
  for (const auto& folder : proc::writable_folders(sandbox)) {
    folders += (folders.empty() ? "" : ", ") + folder.string();
  }
  return fmt::format(
      "[sandbox {}: writes outside {} are refused (\"Permission denied\"){}; if the "
      "command needs more, say so and ask the user to run it or to widen the sandbox]",
      proc::to_string(sandbox.mode), folders.empty() ? "nothing" : folders,
      sandbox.network ? "" : ", and so are network connections");
}

class BashTool final : public Tool {
 public:
  BashTool() {
    const auto& limits = base::Limits::defaults();
    spec_.parameters = json::parse(R"({
      "type": "object",
      "properties": {
        "command": {"type": "string"},
        "timeout": {"type": "integer", "minimum": 1}
      },
      "required": ["command"],
      "additionalProperties": false
    })");
    spec_.parameters["properties"]["timeout"]["description"] =
        fmt::format("Seconds, default {}, max {}", limits.bash_timeout.count(),
                    limits.bash_timeout_max.count());
  }

  const ToolSpec& spec() const override { return spec_; }

  boost::asio::awaitable<Result<ToolResult>> execute(const json& arguments,
                                                     ToolContext& context) override {
    const auto& limits = context.limits;
    auto timeout = std::chrono::seconds(
        arguments.value("timeout", static_cast<long long>(limits.bash_timeout.count())));
    timeout = std::clamp(timeout, std::chrono::seconds(1), limits.bash_timeout_max);

    proc::RunOptions options;
    options.spawn.argv = {"bash", "-c", arguments.at("command").get<std::string>()};
    options.spawn.cwd = context.cwd;
    options.spawn.stderr_mode = proc::StderrMode::merge;  // in order, as in a terminal
    // The model chooses the command: it gets the user's environment without
    // the variables that look like credentials (proc/environment.hpp).
    options.spawn.scrub_secrets = true;
    options.timeout = timeout;
    options.capture_limit = std::min(limits.process_capture, limits.tool_output);
    options.kill_grace = limits.kill_grace;
    options.spawn.sandbox = context.sandbox;
    const bool sandboxed = context.sandbox.mode != proc::SandboxMode::off;
    auto run = co_await proc::run(std::move(options));
    if (!run) {
      // Not the command's fault, but the model should hear why nothing ran.
      co_return ToolResult::error(fmt::format("Could not start bash: {}", run.error().message));
    }
    const auto& result = *run;

    std::string output = base::utf8::make_valid(result.out.text);
    if (output.empty()) output = "(no output)";
    if (!output.ends_with('\n')) output += '\n';
    if (result.out.truncated()) {
      output += fmt::format("[output truncated: {} of {} bytes omitted from the middle]\n",
                            result.out.omitted_bytes, result.out.total_bytes);
    }
    output += status_line(result, timeout);
    const bool failed = !result.status.success() || result.timed_out || result.cancelled;
    // The model should know a refusal came from the sandbox, not the system.
    if (sandboxed && failed) output += "\n" + sandbox_note(context.sandbox);
    json details{{"exit_code", result.status.signal == 0 ? json(result.status.code) : json()},
                 {"signal", result.status.signal == 0 ? json() : json(result.status.signal)},
                 {"timed_out", result.timed_out},
                 {"cancelled", result.cancelled},
                 {"duration_ms",
                  std::chrono::duration_cast<std::chrono::milliseconds>(result.duration).count()},
                 {"output_bytes", result.out.total_bytes},
                 {"omitted_bytes", result.out.omitted_bytes}};
    if (sandboxed) {
      details["sandbox"] = {{"mode", proc::to_string(context.sandbox.mode)},
                            {"network", context.sandbox.network}};
    }
    co_return failed ? ToolResult::error(std::move(output), std::move(details))
                     : ToolResult::text(std::move(output), std::move(details));
  }

 private:
  ToolSpec spec_{.name = "bash",
                 .description =
                     "Run a bash command in the working folder. Returns stdout and "
                     "stderr interleaved, then the exit status; long output keeps "
                     "its head and tail.",
                 .parameters = {},
                 .category = Category::shell};
};

}  // namespace

std::unique_ptr<Tool> make_bash_tool() { return std::make_unique<BashTool>(); }

}  // namespace ava::tool
