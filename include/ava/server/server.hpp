#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace ava::server {

// One API server process: `ava-backend` (mode "backend": bearer token,
// backend.json) or `ava --serve` (mode "serve": the web UI too, no token).
// Both own AVA_HOME while they run and serve the same API.
struct ServeOptions {
  std::string mode = "backend";
  std::uint16_t port = 0;  // 0: ephemeral
  int threads = 2;
  bool open_browser = false;  // serve: open the URL when a display is there
};

// Runs until SIGINT/SIGTERM (or POST /api/shutdown in backend mode), then
// shuts down in order: stop accepting, close every agent (running turns end
// interrupted, tool calls paired, logs synced), close the shared MCP server
// connections, end the streams, write the registry, remove backend.json and
// release the home. Returns the exit code.
int run_api_server(const ServeOptions& options);

}  // namespace ava::server
