#include "ava/tool/tool.hpp"

#include <exception>

#include <fmt/format.h>

#include "ava/tool/schema.hpp"

namespace ava::tool {

std::string_view to_string(Category category) noexcept {
  switch (category) {
    case Category::fs: return "fs";
    case Category::shell: return "shell";
    case Category::mcp: return "mcp";
    case Category::web: return "web";
    case Category::other: return "other";
  }
  return "other";
}

ToolResult ToolResult::text(std::string text, nlohmann::json details) {
  return ToolResult{
      .content = {TextContent{std::move(text)}}, .is_error = false, .details = std::move(details)};
}

ToolResult ToolResult::error(std::string text, nlohmann::json details) {
  return ToolResult{
      .content = {TextContent{std::move(text)}}, .is_error = true, .details = std::move(details)};
}

std::string ToolResult::joined_text() const {
  std::string out;
  for (const auto& block : content) {
    if (const auto* text = std::get_if<TextContent>(&block)) {
      if (!out.empty()) out += '\n';
      out += text->text;
    }
  }
  return out;
}

boost::asio::awaitable<Result<ToolResult>> invoke(Tool& tool, const nlohmann::json& arguments,
                                                  ToolContext& context) {
  const auto& name = tool.spec().name;
  if (auto valid = validate(tool.accepted_arguments(), arguments); !valid) {
    co_return ToolResult::error(
        fmt::format("Invalid arguments for {}: {}", name, valid.error().message));
  }
  std::string bug;
  try {
    co_return co_await tool.execute(arguments, context);
  } catch (const std::exception& error) {
    bug = error.what();
  }
  co_return fail(ErrorCode::internal, fmt::format("tool {} failed: {}", name, bug));
}

}  // namespace ava::tool
