#include <fmt/format.h>

#include "ava/tool/files.hpp"
#include "ava/tool/registry.hpp"
#include "file_io.hpp"

namespace ava::tool {
namespace {

using nlohmann::json;

class WriteTool final : public Tool {
 public:
  const ToolSpec& spec() const override { return spec_; }

  boost::asio::awaitable<Result<ToolResult>> execute(const json& arguments,
                                                     ToolContext& context) override {
    const auto& path_text = arguments.at("path").get_ref<const std::string&>();
    const auto& content = arguments.at("content").get_ref<const std::string&>();
    const auto path = file_io::resolve(context, path_text);
    auto written = file_io::write_file_atomic(path, content);
    if (!written) {
      co_return ToolResult::error(
          fmt::format("Could not write {}: {}", path_text, written.error().message));
    }
    co_return write_report(path_text, path, content.size(), written->created);
  }

 private:
  ToolSpec spec_{
      .name = "write",
      .description = "Create or overwrite a file with the given content. Creates parent folders.",
      .parameters = json::parse(R"({
        "type": "object",
        "properties": {
          "path": {"type": "string", "description": "File path, relative to the working folder or absolute"},
          "content": {"type": "string"}
        },
        "required": ["path", "content"],
        "additionalProperties": false
      })"),
      .category = Category::fs};
};

}  // namespace

ToolResult write_report(std::string_view path_text, const std::filesystem::path& path,
                        std::size_t bytes, bool created) {
  return ToolResult::text(
      fmt::format("{} {} ({} bytes).", created ? "Created" : "Overwrote", path_text, bytes),
      {{"path", path.string()}, {"bytes", bytes}, {"created", created}});
}

std::unique_ptr<Tool> make_write_tool() { return std::make_unique<WriteTool>(); }

}  // namespace ava::tool
