#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "ava/mcp/session.hpp"
#include "ava/mcp/stdio_transport.hpp"

namespace ava::test {

// The npm folder scripts/setup installs (tests/mcp-servers, `npm ci`).
inline std::filesystem::path mcp_servers_dir() {
  return std::filesystem::path(AVA_SOURCE_DIR) / "tests" / "mcp-servers";
}

inline bool mcp_servers_installed() {
  return std::filesystem::exists(mcp_servers_dir() / "node_modules" / "@modelcontextprotocol" /
                                 "server-everything" / "dist" / "index.js");
}

inline std::string everything_entry() {
  return (mcp_servers_dir() / "node_modules" / "@modelcontextprotocol" / "server-everything" /
          "dist" / "index.js")
      .string();
}

// server-everything over stdio.
inline mcp::StdioServer everything_stdio() {
  return mcp::StdioServer{.command = "node", .args = {everything_entry(), "stdio"}};
}

// tests/mcp-servers/ava-test-server.mjs: pagination, server requests, dying.
inline mcp::StdioServer test_server_stdio() {
  return mcp::StdioServer{.command = "node",
                          .args = {(mcp_servers_dir() / "ava-test-server.mjs").string()}};
}

}  // namespace ava::test

// Catch2 v2 has no SKIP: a test without the npm servers says why and passes.
// scripts/setup installs them, so in CI these tests always run.
#define AVA_REQUIRE_MCP_SERVERS()                                                     \
  do {                                                                                \
    if (!ava::test::mcp_servers_installed()) {                                        \
      WARN("skipped: tests/mcp-servers/node_modules is missing (run scripts/setup)"); \
      return;                                                                         \
    }                                                                                 \
  } while (false)
