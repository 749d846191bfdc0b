#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ava/capabilities/mcp_hub.hpp"
#include "ava/tool/source.hpp"

namespace ava::capabilities {

// The MCP tools of the servers enabled in `project`, as an agent's
// tool::ToolSource: the hub's offer, taken again whenever the hub's tool
// lists changed (tools_version), so a loaded agent follows a server's
// notifications/tools/list_changed from its next step. `on_note` hears why
// a server's tools are left out (stderr for ava -p, the log for the server).
std::shared_ptr<tool::ToolSource> mcp_tool_source(std::shared_ptr<McpHub> hub,
                                                  std::filesystem::path project,
                                                  std::function<void(const std::string&)> on_note);
// The same over several hubs (the shared one and a conversation's own), in
// their order; null hubs are skipped.
std::shared_ptr<tool::ToolSource> mcp_tool_source(std::vector<std::shared_ptr<McpHub>> hubs,
                                                  std::filesystem::path project,
                                                  std::function<void(const std::string&)> on_note);

}  // namespace ava::capabilities
