#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "ava/mcp/adapt.hpp"
#include "ava/mcp/server.hpp"

namespace ava::mcp {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr std::size_t max_tool_name = 64;

std::string sanitized(std::string_view part) {
  std::string out(part);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

class McpTool final : public tool::Tool {
 public:
  McpTool(std::shared_ptr<ServerConnection> server, ToolInfo info)
      : server_(std::move(server)), info_(std::move(info)) {
    spec_.name = tool_name(server_->config().name, info_.name);
    spec_.description = !info_.description.empty() ? info_.description : info_.title;
    spec_.parameters = info_.input_schema;
    // A draft marker means nothing to a provider and some refuse it.
    spec_.parameters.erase("$schema");
    if (!spec_.parameters.contains("type")) spec_.parameters["type"] = "object";
    spec_.category = tool::Category::mcp;
    // The server's hint: permissions count such a tool's calls as reads.
    if (info_.annotations.is_object()) {
      const auto hint = info_.annotations.find("readOnlyHint");
      spec_.read_only = hint != info_.annotations.end() && hint->is_boolean() && hint->get<bool>();
    }
  }

  const tool::ToolSpec& spec() const override { return spec_; }

  // The server validates against its whole schema, which may use keywords
  // beyond the subset tool::validate knows; only the shape is checked here.
  const json& accepted_arguments() const override { return accepted_; }

  asio::awaitable<Result<tool::ToolResult>> execute(const json& arguments,
                                                    tool::ToolContext& context) override {
    const auto& server_name = server_->config().name;
    auto session = co_await server_->session();
    if (!session) {
      if (session.error().code == ErrorCode::cancelled) co_return std::unexpected(session.error());
      co_return tool::ToolResult::error(
          fmt::format("MCP server {} is not available: {}", server_name, session.error().message));
    }
    RequestOptions options{.timeout = server_->config().call_timeout,
                           .on_progress = [name = spec_.name](const Progress& progress) {
                             spdlog::debug("mcp {}: progress {}/{} {}", name, progress.progress,
                                           progress.total.value_or(0), progress.message);
                           }};
    auto called = co_await call_tool(**session, info_.name, arguments, std::move(options));
    if (!called) {
      // Cancellation is the turn's business (abort); everything else the
      // model can read and work around.
      if (called.error().code == ErrorCode::cancelled) co_return std::unexpected(called.error());
      co_return tool::ToolResult::error(fmt::format(
          "MCP tool {} on server {} failed: {}", info_.name, server_name, called.error().message));
    }
    server_->report_success();
    tool::ToolResult result = adapt_call_result(*called, context.limits);
    result.details["mcp"] = {{"server", server_name}, {"tool", info_.name}};
    co_return result;
  }

 private:
  std::shared_ptr<ServerConnection> server_;
  ToolInfo info_;
  tool::ToolSpec spec_;
  json accepted_ = json{{"type", "object"}};
};

}  // namespace

std::string tool_name(std::string_view server, std::string_view tool) {
  std::string name = fmt::format("mcp__{}__{}", sanitized(server), sanitized(tool));
  if (name.size() > max_tool_name) name.resize(max_tool_name);
  return name;
}

std::unique_ptr<tool::Tool> make_mcp_tool(std::shared_ptr<ServerConnection> server, ToolInfo info) {
  return std::make_unique<McpTool>(std::move(server), std::move(info));
}

asio::awaitable<Result<std::vector<std::string>>> register_server_tools(
    tool::ToolRegistry& registry, std::shared_ptr<ServerConnection> server) {
  auto tools = co_await server->tools();
  if (!tools) co_return std::unexpected(std::move(tools).error());
  std::vector<std::string> names;
  for (auto& info : *tools) {
    auto tool = make_mcp_tool(server, std::move(info));
    names.push_back(tool->spec().name);
    registry.add(std::move(tool));
  }
  co_return names;
}

}  // namespace ava::mcp
