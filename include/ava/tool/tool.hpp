#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/proc/sandbox.hpp"
#include "ava/tool/content.hpp"

namespace ava::tool {

// What a tool touches; permissions decide per category later.
enum class Category { fs, shell, mcp, web, other };
std::string_view to_string(Category category) noexcept;

struct ToolSpec {
  std::string name;
  std::string description;    // short: it is sent with every request
  nlohmann::json parameters;  // JSON Schema of the arguments, as the model sees it
  Category category = Category::other;
  // Changes nothing (reads, lookups; an MCP tool's readOnlyHint): the
  // permission check counts its calls as reads.
  bool read_only = false;
};

struct ToolContext {
  std::filesystem::path cwd;  // relative paths and commands start here
  base::Limits limits = base::Limits::defaults();
  boost::asio::any_io_executor executor;
  proc::Sandbox sandbox;  // where commands run (bash); mode off: unrestricted
  std::string call_id;    // the call being run, for tools that record it (task)
};

class Tool {
 public:
  Tool() = default;
  virtual ~Tool() = default;
  Tool(const Tool&) = delete;
  Tool& operator=(const Tool&) = delete;

  virtual const ToolSpec& spec() const = 0;

  // The schema arguments are validated against. By default the model-facing
  // one; a tool that still accepts an older argument form widens it here.
  virtual const nlohmann::json& accepted_arguments() const { return spec().parameters; }

  // Runs with arguments that already passed accepted_arguments(). Problems
  // the model can fix come back as ToolResult::error; an Error means the
  // infrastructure failed (the caller decides whether the turn goes on).
  virtual boost::asio::awaitable<Result<ToolResult>> execute(const nlohmann::json& arguments,
                                                             ToolContext& context) = 0;
};

// Validates the arguments, then executes. Invalid arguments become a readable
// ToolResult::error naming the field; an exception escaping the tool (a bug)
// becomes an internal Error instead of taking the process down.
boost::asio::awaitable<Result<ToolResult>> invoke(Tool& tool, const nlohmann::json& arguments,
                                                  ToolContext& context);

}  // namespace ava::tool
