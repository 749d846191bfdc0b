#include "ava/tool/registry.hpp"

#include <algorithm>

namespace ava::tool {

void ToolRegistry::add(std::unique_ptr<Tool> tool) {
  const auto& name = tool->spec().name;
  const auto same = std::ranges::find_if(
      tools_, [&](const auto& existing) { return existing->spec().name == name; });
  if (same != tools_.end()) {
    *same = std::move(tool);
  } else {
    tools_.push_back(std::move(tool));
  }
}

void ToolRegistry::truncate(std::size_t count) {
  if (count < tools_.size()) tools_.resize(count);
}

Tool* ToolRegistry::find(std::string_view name) const {
  for (const auto& tool : tools_) {
    if (tool->spec().name == name) return tool.get();
  }
  return nullptr;
}

std::vector<ToolSpec> ToolRegistry::specs() const {
  std::vector<ToolSpec> out;
  out.reserve(tools_.size());
  for (const auto& tool : tools_) out.push_back(tool->spec());
  return out;
}

ToolRegistry default_tools() {
  ToolRegistry registry;
  registry.add(make_read_tool());
  registry.add(make_write_tool());
  registry.add(make_edit_tool());
  registry.add(make_bash_tool());
  return registry;
}

}  // namespace ava::tool
