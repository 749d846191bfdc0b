// Subagents: the `task` tool runs a child agent to completion with a focused
// prompt and the tools its definition allows (prompts/agents.hpp), in a log
// of its own beside this one, and returns its final text with a short trace.
// The child has this agent's permissions with nobody to answer its calls;
// abort, pause and resume reach it (core.cpp); its usage is counted here.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/id.hpp"
#include "core.hpp"

namespace ava::agent {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr int max_child_steps = 40;

// Another source's tools, only those `keep` accepts (a definition's list).
class FilteredSource final : public tool::ToolSource {
 public:
  FilteredSource(std::shared_ptr<tool::ToolSource> inner,
                 std::function<bool(const tool::ToolSpec&)> keep)
      : inner_(std::move(inner)), keep_(std::move(keep)) {}
  std::uint64_t generation() const override { return inner_->generation(); }
  std::vector<std::unique_ptr<tool::Tool>> tools() override {
    auto tools = inner_->tools();
    std::erase_if(tools, [&](const auto& tool) { return !keep_(tool->spec()); });
    return tools;
  }

 private:
  std::shared_ptr<tool::ToolSource> inner_;
  std::function<bool(const tool::ToolSpec&)> keep_;
};

class TaskTool final : public tool::Tool {
 public:
  TaskTool(std::weak_ptr<AgentCore> core, const std::vector<prompts::AgentDefinition>& agents)
      : core_(std::move(core)) {
    json names = json::array();
    std::string listed;
    for (const auto& agent : agents) {
      names.push_back(agent.name);
      listed += fmt::format("\n- {}: {}", agent.name, agent.description);
    }
    spec_.description =
        "Start a subagent on one self-contained task; it works alone with its own tools and "
        "context and returns only its final report. Give it everything it needs in the "
        "prompt. Several task calls in one response run in parallel. Agents:" +
        listed;
    spec_.parameters = {
        {"type", "object"},
        {"properties",
         {{"agent", {{"type", "string"}, {"enum", names}}},
          {"description", {{"type", "string"}, {"description", "3-7 words, for the user"}}},
          {"prompt", {{"type", "string"}, {"description", "the task, with all it needs"}}}}},
        {"required", {"agent", "prompt"}},
        {"additionalProperties", false}};
  }

  const tool::ToolSpec& spec() const override { return spec_; }

  asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                    tool::ToolContext& context) override {
    auto core = core_.lock();
    if (!core) co_return fail(ErrorCode::cancelled, "the agent is closing");
    co_return co_await core->run_subagent(context.call_id, arguments);
  }

 private:
  std::weak_ptr<AgentCore> core_;
  tool::ToolSpec spec_{.name = "task", .category = tool::Category::other};
};

std::string text_of(const std::vector<content::ContentBlock>& content) {
  std::string text;
  for (const auto& block : content) {
    if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
  }
  return text;
}

// What the parent waits for: the child's first turn to end.
struct ChildRun {
  explicit ChildRun(const asio::any_io_executor& executor)
      : wake(executor, asio::steady_timer::time_point::max()) {}
  std::mutex mutex;
  bool done = false;
  session::TurnEnded end;
  std::string answer;  // the last assistant text
  int steps = 0;
  std::vector<std::string> calls;  // "name status", in order
  asio::steady_timer wake;
};

}  // namespace

std::unique_ptr<tool::Tool> make_task_tool(std::weak_ptr<AgentCore> core,
                                           const std::vector<prompts::AgentDefinition>& agents) {
  return std::make_unique<TaskTool>(std::move(core), agents);
}

Result<AgentOptions> AgentCore::child_options(const prompts::AgentDefinition& definition,
                                              const std::string& call_id) const {
  AgentOptions child;
  child.provider_factory = options_.provider_factory;
  {
    std::lock_guard lock(mutex_);
    child.model = {.provider = context_.context().provider, .model = context_.context().model};
  }
  if (!definition.model.empty() && definition.model != "inherit") {
    child.model = {.provider = "", .model = definition.model};
  }
  child.cwd = tool_context_.cwd;
  child.home = options_.home;
  child.limits = options_.limits;
  child.max_steps = std::min(options_.max_steps, max_child_steps);
  child.parent_session_id = session_id_;
  child.parent_call_id = call_id;
  child.append_system_prompt = fmt::format(
      "You are the \"{}\" subagent: another agent gave you one task. Work on it alone (nobody "
      "answers questions), then reply with your result; your final answer is all it sees.\n\n{}",
      definition.name, definition.instructions);

  const auto& allowed = definition.tools;
  auto allows = [&](std::string_view name) {
    return !allowed || std::ranges::find(*allowed, name) != allowed->end();
  };
  if (permissions_) {
    child.permissions = *permissions();
    child.permissions->can_ask = false;  // nobody answers a subagent's calls
    if (definition.read_only) {
      // Reads, and bash only where the kernel keeps it read-only.
      child.permissions->rules.allow.clear();
      if (proc::sandbox_support().filesystem()) {
        child.permissions->rules.mode = policy::Mode::auto_;
        child.permissions->sandbox.mode = proc::SandboxMode::read_only;
        child.permissions->sandbox.network = false;
      } else {
        child.permissions->rules.mode = policy::Mode::plan;
      }
    }
  }
  const bool bash_safe =
      !definition.read_only ||
      (child.permissions && child.permissions->rules.mode == policy::Mode::auto_);
  tool::ToolRegistry tools;
  if (allows("read")) tools.add(tool::make_read_tool());
  if (allows("write") && !definition.read_only) tools.add(tool::make_write_tool());
  if (allows("edit") && !definition.read_only) tools.add(tool::make_edit_tool());
  if (allows("bash") && bash_safe) tools.add(tool::make_bash_tool());
  child.tools = std::move(tools);
  child.memory = options_.memory && allowed && allows("memory") && !definition.read_only;
  if (allows("skill")) {
    child.skill_roots = options_.skill_roots;
    child.disabled_skills = options_.disabled_skills;
  }
  if (options_.tool_source) {
    const bool read_only = definition.read_only;
    const auto names = allowed;
    child.tool_source = std::make_shared<FilteredSource>(
        options_.tool_source, [read_only, names](const tool::ToolSpec& spec) {
          if (read_only && !spec.read_only) return false;
          return !names || std::ranges::find(*names, spec.name) != names->end();
        });
  }
  return child;
}

asio::awaitable<Result<tool::ToolResult>> AgentCore::run_subagent(std::string call_id,
                                                                  json arguments) {
  const std::string name = arguments.value("agent", std::string());
  const std::string prompt = arguments.value("prompt", std::string());
  const auto definition = std::ranges::find(agents_, name, &prompts::AgentDefinition::name);
  if (definition == agents_.end()) {
    std::vector<std::string> names;
    for (const auto& agent : agents_) names.push_back(agent.name);
    co_return tool::ToolResult::error(
        fmt::format("No subagent named {}. Agents: {}.", name, fmt::join(names, ", ")));
  }
  if (prompt.empty()) co_return tool::ToolResult::error("prompt is required");
  AVA_CO_TRY(AgentOptions options, child_options(*definition, call_id));
  const std::string child_id = base::new_id();
  const auto log = log_->path().parent_path() / (child_id + ".jsonl.zst");
  auto created = Agent::create(executor_, log, std::move(options));
  if (!created) {
    co_return tool::ToolResult::error("The subagent could not start: " + created.error().message);
  }
  std::shared_ptr<Agent> child = std::move(*created);

  auto run = std::make_shared<ChildRun>(strand_);
  child->subscribe([run](const session::Event& event) {
    std::lock_guard lock(run->mutex);
    if (run->done) return;
    if (const auto* message = std::get_if<session::AssistantMessage>(&event.body)) {
      if (auto text = text_of(message->content); !text.empty()) run->answer = std::move(text);
    } else if (std::holds_alternative<session::StepStarted>(event.body)) {
      ++run->steps;
    } else if (const auto* result = std::get_if<session::ToolResult>(&event.body)) {
      run->calls.push_back(
          fmt::format("{} {}", result->tool_name, session::to_string(result->status)));
    } else if (const auto* ended = std::get_if<session::TurnEnded>(&event.body)) {
      run->done = true;
      run->end = *ended;
      asio::post(run->wake.get_executor(), [run] { run->wake.cancel(); });
    }
  });
  {
    std::lock_guard lock(mutex_);
    children_.push_back(child);
    // An abort or pause that came while the child started reaches it too.
    if (abort_requested_) (void)child->abort();
    if (pause_requested_) (void)child->pause();
  }
  if (auto given = child->followup(prompt); !given) {
    std::lock_guard lock(mutex_);
    std::erase(children_, child);
    co_return tool::ToolResult::error("The subagent could not take the task: " +
                                      given.error().message);
  }
  std::string turn_id;
  {
    std::lock_guard lock(mutex_);
    turn_id = current_turn_;
  }
  emit_live(ToolActivity{.turn_id = turn_id,
                         .call_id = call_id,
                         .tool_name = "task",
                         .label = fmt::format("Subagent {}: {}", name,
                                              arguments.value("description", std::string()))});
  for (;;) {
    {
      std::lock_guard lock(run->mutex);
      if (run->done) break;
    }
    // Woken by the child's turn end (on this strand: no wake-up is lost
    // between the check above and the wait); the deadline re-checks an
    // abort of this agent, which the child then gets too.
    run->wake.expires_after(std::chrono::seconds(1));
    co_await run->wake.async_wait(asio::as_tuple(asio::use_awaitable));
    bool aborting = false;
    {
      std::lock_guard lock(mutex_);
      aborting = abort_requested_ || close_requested_;
    }
    if (aborting) (void)child->abort();
    // A child whose log stopped taking events never ends its turn: stop
    // waiting once its driver is gone.
    if (child->status().state == DriverState::closed) {
      std::lock_guard lock(run->mutex);
      if (!run->done) {
        run->done = true;
        run->end = {.reason = session::EndReason::error, .message = "the subagent stopped"};
      }
    }
  }
  {
    std::lock_guard lock(mutex_);
    std::erase(children_, child);
  }
  const Status status = child->status();
  child->begin_close();

  session::TurnEnded end;
  std::string answer;
  int steps = 0;
  std::vector<std::string> calls;
  {
    std::lock_guard lock(run->mutex);
    end = run->end;
    answer = run->answer;
    steps = run->steps;
    calls = run->calls;
  }
  if (status.usage != llm::Usage{}) {
    std::string turn;
    int step = 0;
    {
      std::lock_guard lock(mutex_);
      turn = current_turn_;
      step = current_step_;
    }
    (void)append({session::UsageRecorded{.turn_id = turn,
                                         .step = step,
                                         .model = status.model,
                                         .usage = status.usage,
                                         .subagent = child_id}});
  }
  const bool completed = end.reason == session::EndReason::completed;
  std::string text = answer.empty() ? std::string("(the subagent gave no answer)") : answer;
  text +=
      fmt::format("\n\n[Subagent {}: {} after {} step{}; tools: {}]", name,
                  session::to_string(end.reason), steps, steps == 1 ? "" : "s",
                  calls.empty() ? std::string("none") : fmt::format("{}", fmt::join(calls, ", ")));
  if (!completed && !end.message.empty()) text += " " + end.message;
  json details{{"subagent",
                {{"sessionId", child_id},
                 {"agent", name},
                 {"log", log.string()},
                 {"outcome", session::to_string(end.reason)},
                 {"steps", steps},
                 {"toolCalls", calls},
                 {"model", status.model},
                 {"usage",
                  {{"inputTokens", status.usage.input_tokens},
                   {"outputTokens", status.usage.output_tokens},
                   {"cacheReadTokens", status.usage.cache_read_tokens},
                   {"cacheWriteTokens", status.usage.cache_write_tokens}}}}}};
  co_return completed ? tool::ToolResult::text(std::move(text), std::move(details))
                      : tool::ToolResult::error(std::move(text), std::move(details));
}

}  // namespace ava::agent
