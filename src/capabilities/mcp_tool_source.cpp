#include "ava/capabilities/mcp_tool_source.hpp"

namespace ava::capabilities {
namespace {

class McpToolSource final : public tool::ToolSource {
 public:
  McpToolSource(std::vector<std::shared_ptr<McpHub>> hubs, std::filesystem::path project,
                std::function<void(const std::string&)> on_note)
      : hubs_(std::move(hubs)), project_(std::move(project)), on_note_(std::move(on_note)) {}

  // Each hub's version only grows, so their sum moves whenever one does.
  std::uint64_t generation() const override {
    std::uint64_t sum = 0;
    for (const auto& hub : hubs_) sum += hub->tools_version();
    return sum;
  }

  std::vector<std::unique_ptr<tool::Tool>> tools() override {
    std::vector<std::unique_ptr<tool::Tool>> tools;
    for (const auto& hub : hubs_) {
      auto offer = hub->tools_for(project_);
      if (on_note_) {
        for (const auto& note : offer.notes) on_note_(note);
      }
      for (auto& item : offer.tools) tools.push_back(std::move(item));
    }
    return tools;
  }

 private:
  std::vector<std::shared_ptr<McpHub>> hubs_;
  std::filesystem::path project_;
  std::function<void(const std::string&)> on_note_;
};

}  // namespace

std::shared_ptr<tool::ToolSource> mcp_tool_source(std::shared_ptr<McpHub> hub,
                                                  std::filesystem::path project,
                                                  std::function<void(const std::string&)> on_note) {
  return mcp_tool_source(std::vector<std::shared_ptr<McpHub>>{std::move(hub)}, std::move(project),
                         std::move(on_note));
}

std::shared_ptr<tool::ToolSource> mcp_tool_source(std::vector<std::shared_ptr<McpHub>> hubs,
                                                  std::filesystem::path project,
                                                  std::function<void(const std::string&)> on_note) {
  std::erase(hubs, nullptr);
  return std::make_shared<McpToolSource>(std::move(hubs), std::move(project), std::move(on_note));
}

}  // namespace ava::capabilities
