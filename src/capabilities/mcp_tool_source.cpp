#include "ava/capabilities/mcp_tool_source.hpp"

namespace ava::capabilities {
namespace {

class McpToolSource final : public tool::ToolSource {
 public:
  McpToolSource(std::shared_ptr<McpHub> hub, std::filesystem::path project,
                std::function<void(const std::string&)> on_note)
      : hub_(std::move(hub)), project_(std::move(project)), on_note_(std::move(on_note)) {}

  std::uint64_t generation() const override { return hub_->tools_version(); }

  std::vector<std::unique_ptr<tool::Tool>> tools() override {
    auto offer = hub_->tools_for(project_);
    if (on_note_) {
      for (const auto& note : offer.notes) on_note_(note);
    }
    return std::move(offer.tools);
  }

 private:
  std::shared_ptr<McpHub> hub_;
  std::filesystem::path project_;
  std::function<void(const std::string&)> on_note_;
};

}  // namespace

std::shared_ptr<tool::ToolSource> mcp_tool_source(std::shared_ptr<McpHub> hub,
                                                  std::filesystem::path project,
                                                  std::function<void(const std::string&)> on_note) {
  return std::make_shared<McpToolSource>(std::move(hub), std::move(project), std::move(on_note));
}

}  // namespace ava::capabilities
