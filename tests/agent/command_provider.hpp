#pragma once

#include <memory>
#include <string>

#include "agent_test_util.hpp"

namespace ava::test {

// A provider that does what the last user message says, for tests whose
// agents run in parallel (a script's order would depend on timing):
//   "bash: CMD"                    one bash call
//   "task: AGENT: PROMPT" lines    one task call per line, in one response
//   a tool result                  "done: " and its first line
//   anything else                  "echo: " and the text
class CommandProvider final : public llm::Provider {
 public:
  explicit CommandProvider(std::shared_ptr<ProviderJournal> journal)
      : journal_(std::move(journal)) {}

  boost::asio::awaitable<Result<llm::Response>> stream(const llm::Request& request,
                                                       llm::EventSink) override {
    {
      std::lock_guard lock(journal_->mutex);
      journal_->requests.push_back(request);
    }
    llm::Response response;
    response.message.role = llm::Role::assistant;
    response.usage = {.input_tokens = 10, .output_tokens = 5};
    const auto& last = request.messages.back();
    std::string text;
    for (const auto& block : last.content) {
      if (const auto* part = std::get_if<content::TextBlock>(&block)) text += part->text;
      if (const auto* result = std::get_if<content::ToolResultBlock>(&block)) {
        for (const auto& inner : result->content) {
          if (const auto* part = std::get_if<content::TextBlock>(&inner)) text += part->text;
        }
      }
    }
    auto call = [&](std::string name, nlohmann::json arguments) {
      response.message.content.emplace_back(
          content::ToolCallBlock{.id = "call_" + std::to_string(++calls_),
                                 .name = std::move(name),
                                 .arguments = arguments.dump()});
    };
    if (last.role == llm::Role::tool) {
      response.message.content.emplace_back(
          content::TextBlock{"done: " + text.substr(0, text.find('\n'))});
    } else if (text.starts_with("bash: ")) {
      call("bash", {{"command", text.substr(6)}});
    } else if (text.starts_with("task: ")) {
      std::size_t at = 0;
      while (at < text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        if (!line.starts_with("task: ")) continue;
        const std::size_t colon = line.find(": ", 6);
        call("task", {{"agent", line.substr(6, colon - 6)},
                      {"description", "test"},
                      {"prompt", colon == std::string::npos ? "" : line.substr(colon + 2)}});
      }
    } else {
      response.message.content.emplace_back(content::TextBlock{"echo: " + text});
    }
    const bool calls = !response.message.content.empty() &&
                       std::holds_alternative<content::ToolCallBlock>(response.message.content[0]);
    response.stop.reason = calls ? llm::StopReason::tool_use : llm::StopReason::end_turn;
    co_return response;
  }
  void close() override {}

 private:
  std::shared_ptr<ProviderJournal> journal_;
  int calls_ = 0;
};

inline agent::ProviderFactory command_factory(std::shared_ptr<ProviderJournal> journal) {
  return [journal](const agent::ModelChoice& choice) -> Result<agent::ProviderBinding> {
    return agent::ProviderBinding{.provider = std::make_unique<CommandProvider>(journal),
                                  .provider_name = "command",
                                  .model = choice.model.empty() ? "command-model" : choice.model,
                                  .context_window = 200'000};
  };
}

}  // namespace ava::test
