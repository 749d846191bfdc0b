#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/tool/registry.hpp"
#include "support/run_awaitable.hpp"

namespace ava::test {

// Calls a default tool by name the way the agent will: validation first.
inline tool::ToolResult call_tool(std::string_view name, const nlohmann::json& arguments,
                                  tool::ToolContext context) {
  static const auto registry = tool::default_tools();
  auto* found = registry.find(name);
  REQUIRE(found != nullptr);
  auto result = run_awaitable(tool::invoke(*found, arguments, context));
  REQUIRE(result.has_value());
  return *result;
}

inline tool::ToolResult call_tool(std::string_view name, const nlohmann::json& arguments,
                                  const std::filesystem::path& cwd) {
  return call_tool(name, arguments, tool::ToolContext{.cwd = cwd});
}

inline void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace ava::test
