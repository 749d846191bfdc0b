// The agent's tool set: its own tools first (read, write, edit, bash, skill,
// or the application's), then a ToolSource's, which may change between steps.

#include <spdlog/spdlog.h>

#include "core.hpp"

namespace ava::agent {

void AgentCore::add_source_tools() {
  if (!options_.tool_source) return;
  // The generation before the list: a change while listing moves it again,
  // so the next step boundary takes the list once more.
  source_generation_ = options_.tool_source->generation();
  for (auto& tool : options_.tool_source->tools()) {
    const auto& name = tool->spec().name;
    bool own = false;
    for (std::size_t i = 0; i < own_tools_; ++i)
      own = own || tools_.tools()[i]->spec().name == name;
    if (own) {
      spdlog::warn("agent {}: a source tool named {} is left out: the agent has its own",
                   session_id_, name);
      continue;
    }
    tools_.add(std::move(tool));
  }
}

// At a step boundary, on the strand: no call of the last step is running,
// so dropping the old tools is safe.
void AgentCore::refresh_source_tools() {
  if (!options_.tool_source || options_.tool_source->generation() == source_generation_) return;
  tools_.truncate(own_tools_);
  add_source_tools();
  publish_tool_specs();
  spdlog::debug("agent {}: tool set changed, {} tools", session_id_, tools_.size());
}

void AgentCore::publish_tool_specs() {
  auto specs = to_llm_specs(tools_);
  const auto tokens = estimate_tokens(llm::Request{.system = system_prompt_, .tools = specs});
  std::unordered_set<std::string> read_only;
  for (const auto& tool : tools_.tools()) {
    if (tool->spec().read_only) read_only.insert(tool->spec().name);
  }
  std::lock_guard lock(mutex_);
  tool_specs_ = std::move(specs);
  read_only_tools_ = std::move(read_only);
  fixed_tokens_ = tokens;
}

}  // namespace ava::agent
