#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/mcp/session.hpp"

// Typed MCP requests over a Session: the lists (paginated to the end) and
// tools/call. Raw JSON stays here; callers get C++ types.
namespace ava::mcp {

struct ToolInfo {
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json input_schema = nlohmann::json::object();
  nlohmann::json output_schema;  // null when absent
  nlohmann::json annotations;    // null when absent (readOnlyHint, ...)
};

struct ResourceInfo {
  std::string uri;
  std::string name;
  std::string title;
  std::string description;
  std::string mime_type;
  std::optional<std::int64_t> size;
};

struct PromptArgument {
  std::string name;
  std::string description;
  bool required = false;
};

struct PromptInfo {
  std::string name;
  std::string title;
  std::string description;
  std::vector<PromptArgument> arguments;
};

// Pagination follows nextCursor until the server stops giving one. A server
// that repeats a cursor or exceeds max_pages is a protocol error rather than
// an endless loop.
struct ListOptions {
  int max_pages = 100;
  std::chrono::milliseconds timeout{30'000};  // per page
};

// No default arguments on these coroutines: see session.hpp.
boost::asio::awaitable<Result<std::vector<ToolInfo>>> list_tools(Session& session,
                                                                 ListOptions options);
boost::asio::awaitable<Result<std::vector<ResourceInfo>>> list_resources(Session& session,
                                                                         ListOptions options);
boost::asio::awaitable<Result<std::vector<PromptInfo>>> list_prompts(Session& session,
                                                                     ListOptions options);

// tools/call: the raw CallToolResult (adapt it with adapt_call_result). A
// tool failure is a result with isError, not an Error.
boost::asio::awaitable<Result<nlohmann::json>> call_tool(Session& session, std::string name,
                                                         nlohmann::json arguments,
                                                         RequestOptions options);

}  // namespace ava::mcp
