// The built-in slash commands (prompts/builtins.hpp): answered by the agent
// itself, recorded as a command_output event (and, for /goal, a goal_set),
// never sent to the model. /plan TEXT is not here: it becomes a plan turn
// (commands.cpp).

#include <fmt/format.h>

#include "ava/llm/catalog.hpp"
#include "ava/prompts/builtins.hpp"
#include "core.hpp"

namespace ava::agent {
namespace {

constexpr std::size_t max_goal = 2000;

std::string grouped(std::int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) {
    digits.insert(static_cast<std::size_t>(at), ",");
  }
  return value < 0 ? "-" + digits : digits;
}

std::string usage_line(const llm::Usage& usage) {
  return fmt::format("{} in, {} out, {} cache read, {} cache write", grouped(usage.input_tokens),
                     grouped(usage.output_tokens), grouped(usage.cache_read_tokens),
                     grouped(usage.cache_write_tokens));
}

}  // namespace

Result<std::string> AgentCore::run_builtin(const ExpandedCommand& command,
                                           std::vector<session::EventBody>& events) {
  const std::string& args = command.arguments;
  if (command.name == "help") return help_text();
  if (command.name == "clear") {
    return std::string(
        "`/clear` starts a new conversation: the web UI and the desktop open one in this "
        "project. With `ava -p`, leave out `--continue` and `--session`.");
  }
  if (command.name == "goal") {
    std::string goal;
    {
      std::lock_guard lock(mutex_);
      goal = context_.context().goal;
    }
    if (args.empty()) {
      return goal.empty() ? std::string("No goal is set. `/goal TEXT` sets one.")
                          : "Goal: " + goal + "\n\n`/goal clear` clears it.";
    }
    if (args == "clear") {
      if (goal.empty()) return std::string("No goal was set.");
      events.emplace_back(session::GoalSet{});
      return std::string("Goal cleared.");
    }
    if (args.size() > max_goal) {
      return fail(ErrorCode::limit_exceeded, fmt::format("a goal is at most {} bytes", max_goal));
    }
    events.emplace_back(session::GoalSet{.goal = args});
    return "Goal set: " + args +
           "\n\nIt is reminded at the start of every turn until `/goal clear`.";
  }
  if (command.name == "model") return model_command(args);
  if (command.name == "plan") {
    // With a task, commands.cpp made it a plan turn; without one, the mode.
    AVA_TRY_VOID(set_permission_mode(policy::Mode::plan));
    return std::string(
        "Plan mode: edits, commands and MCP calls are refused until you switch modes. "
        "`/plan TASK` plans one task and leaves the mode as it is.");
  }
  if (command.name == "memory") return memory_text();
  if (command.name == "context") return context_text();
  if (command.name == "cost") return cost_text();
  if (command.name == "compact") {
    bool in_turn = false;
    std::size_t messages = 0;
    {
      std::lock_guard lock(mutex_);
      messages = context_.context().messages.size();
      in_turn = !context_.context().open_turn.empty();
      if (messages > 0) compact_requested_ = args;
    }
    if (messages == 0) return std::string("Nothing to compact yet.");
    return fmt::format("Compacting {} messages{}{}.", messages,
                       args.empty() ? "" : ", focused on: " + args,
                       in_turn ? " when the running turn ends" : "");
  }
  return fail(ErrorCode::internal, "no built-in /" + command.name);
}

std::string AgentCore::help_text() const {
  std::string out = "**Built-in commands**\n";
  for (const auto& builtin : prompts::builtin_commands()) {
    out += fmt::format("- `/{}{}{}` — {}\n", builtin.name, builtin.argument_hint.empty() ? "" : " ",
                       builtin.argument_hint, builtin.description);
  }
  const auto commands =
      prompts::discover_commands({.cwd = tool_context_.cwd, .home = options_.home});
  if (!commands.empty()) out += "\n**Commands from files**\n";
  for (const auto& command : commands) {
    const bool shadowed = prompts::find_builtin(command.name) != nullptr;
    out += fmt::format("- `/{}{}{}` — {} ({}{})\n", command.name,
                       command.argument_hint.empty() ? "" : " ", command.argument_hint,
                       command.description, command.scope,
                       shadowed ? "; the built-in of this name wins" : "");
  }
  if (commands.empty()) {
    out +=
        "\nAdd your own as Markdown files in `.ava/commands/` or `~/.ava/commands/` "
        "(docs/workflows.md).";
  }
  return out;
}

Result<std::string> AgentCore::model_command(const std::string& args) {
  if (args.empty()) {
    std::string provider;
    std::string model;
    std::int64_t window = 0;
    {
      std::lock_guard lock(mutex_);
      provider = context_.context().provider;
      model = context_.context().model;
      window = context_window_;
    }
    return fmt::format(
        "Model: **{}** ({}), a context window of {} tokens.\n\nSwitch with `/model NAME` or "
        "`/model PROVIDER:NAME`; `ava models` lists what is configured.",
        model, provider, grouped(window));
  }
  // "provider:model" when the part before the colon names a provider; else
  // the whole text is a model name (ollama's "llama3:8b" has a colon too).
  Result<void> switched = fail(ErrorCode::invalid_argument, "no model");
  if (const auto colon = args.find(':'); colon != std::string::npos) {
    switched = set_model({.provider = args.substr(0, colon), .model = args.substr(colon + 1)});
  }
  if (!switched) {
    auto whole = set_model({.provider = "", .model = args});
    if (!whole)
      return std::unexpected(args.find(':') != std::string::npos ? switched.error()
                                                                 : whole.error());
  }
  std::lock_guard lock(mutex_);
  const auto& context = context_.context();
  return fmt::format("Model: **{}** ({}) from the next step.", context.model, context.provider);
}

std::string AgentCore::memory_text() const {
  if (!options_.memory) return "Memory is off for this agent.";
  const auto places = memory_places();
  const auto notes = prompts::list_memory(places);
  std::string out;
  if (notes.empty()) {
    out = "No memory notes yet. Ask the agent to remember something, or add Markdown files to ";
  } else {
    out = "**Memory notes** (the model sees these summaries at the start of every turn)\n";
    for (const auto& note : notes) {
      out += fmt::format("- `{}` ({}) — {}  \n  `{}`\n", note.name, prompts::to_string(note.scope),
                         note.summary, note.file.string());
    }
    out += "\nEdit a note's file, or ask the agent to update or forget it. Notes live in ";
  }
  out += fmt::format("`{}` (this project) and `{}` (yours).",
                     prompts::memory_folder(places, prompts::MemoryScope::project).string(),
                     prompts::memory_folder(places, prompts::MemoryScope::user).string());
  return out;
}

std::string AgentCore::context_text() const {
  const ContextReport report = context_report();
  std::string out = fmt::format(
      "**Context**: about {} of {} tokens ({}%), {} messages, {} compaction{}.\n"
      "- system prompt: {} characters\n- tool schemas: {} characters\n",
      grouped(report.estimated_tokens), grouped(report.context_window),
      report.context_window > 0 ? report.estimated_tokens * 100 / report.context_window : 0,
      report.messages, report.compactions, report.compactions == 1 ? "" : "s",
      grouped(static_cast<std::int64_t>(report.system_prompt_chars)),
      grouped(static_cast<std::int64_t>(report.tool_schema_chars)));
  if (!report.context_files.empty()) out += "\n**Instruction files**\n";
  for (const auto& file : report.context_files) {
    out += fmt::format(
        "- `{}` ({}, {} bytes{})\n", file.path.string(), file.scope,
        grouped(static_cast<std::int64_t>(file.bytes)),
        file.included < file.bytes
            ? fmt::format(", {} included", grouped(static_cast<std::int64_t>(file.included)))
            : "");
  }
  if (!report.pending_inputs.empty()) {
    out += fmt::format("\n{} input(s) wait for the next step.\n", report.pending_inputs.size());
  }
  return out;
}

std::string AgentCore::cost_text() const {
  std::map<std::string, llm::Usage> by_model;
  llm::Usage total;
  {
    std::lock_guard lock(mutex_);
    by_model = context_.context().usage_by_model;
    total = context_.context().usage;
  }
  if (by_model.empty()) return "No tokens used yet.";
  std::string out = "**Usage** " + usage_line(total) + "\n";
  double cost = 0;
  bool priced = true;
  for (const auto& [model, usage] : by_model) {
    const llm::ModelInfo info = llm::model_info(model);
    const double spent = llm::cost_usd(info, usage);
    priced = priced && info.known;
    cost += spent;
    out += fmt::format("- {}: {}{}\n", model.empty() ? "(unnamed)" : model, usage_line(usage),
                       info.known ? fmt::format(", ${:.4f}", spent) : ", no price known");
  }
  out += priced
             ? fmt::format("\n**Cost** ${:.4f} at list prices.", cost)
             : fmt::format("\n**Cost** at least ${:.4f}: some models have no known price.", cost);
  return out;
}

}  // namespace ava::agent
