#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ava/base/limits.hpp"
#include "ava/mcp/transport.hpp"
#include "ava/proc/sandbox.hpp"

namespace ava::mcp {

// A server that speaks MCP over its stdin/stdout (newline-delimited JSON).
struct StdioServer {
  std::string command;  // looked up in PATH
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // added to the inherited environment
  std::filesystem::path cwd;               // empty: the parent's
  // The server and all it starts run inside it (mode off: none); if it
  // cannot be applied the server is not started.
  proc::Sandbox sandbox;
  // The server's stderr is appended here (created 0600) up to
  // stderr_log_bytes per connection; the last stderr_tail_bytes are also kept
  // in memory and quoted when the server dies.
  std::optional<std::filesystem::path> stderr_log;
  std::size_t stderr_log_bytes = 1 * base::MiB;
  std::size_t stderr_tail_bytes = 4 * base::KiB;
  std::size_t max_message = base::Limits::defaults().mcp_message;
  // On close: stdin is closed, then after each grace SIGTERM, SIGKILL
  // (to the server's own process group).
  std::chrono::milliseconds close_grace{2000};
};

// The server is spawned by start() in its own process group, reaped when it
// exits, and killed with its group on close or when the transport is dropped.
std::unique_ptr<Transport> make_stdio_transport(StdioServer server);

}  // namespace ava::mcp
