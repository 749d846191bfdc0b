#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ava/tool/tool.hpp"

namespace ava::tool {

// Tools that may change while an agent runs, such as an MCP server's after
// notifications/tools/list_changed. An agent offers them after its own tools
// and asks generation() at every step boundary; when it moved, it takes
// tools() again for the next request (never while a step's calls run).
// Implementations are thread-safe.
class ToolSource {
 public:
  ToolSource() = default;
  virtual ~ToolSource() = default;
  ToolSource(const ToolSource&) = delete;
  ToolSource& operator=(const ToolSource&) = delete;

  // Moves on whenever tools() may give another list; cheap to ask.
  virtual std::uint64_t generation() const = 0;
  // The tools now, in a stable order (the same tools in the same order).
  virtual std::vector<std::unique_ptr<Tool>> tools() = 0;
};

}  // namespace ava::tool
