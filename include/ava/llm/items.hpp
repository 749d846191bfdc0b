#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/content/items.hpp"

namespace ava::llm {

// The items themselves are the provider-neutral ones of the content package;
// llm's adapters and the agent name them as llm:: for brevity.
using content::ContentBlock;
using content::ImageBlock;
using content::Message;
using content::Role;
using content::TextBlock;
using content::ThinkingBlock;
using content::ToolCallBlock;
using content::ToolResultBlock;
using content::ToolResultContent;
using content::ToolSpec;
using content::Usage;

// One provider request. `system` is sent as the provider's system prompt.
struct Request {
  std::string model;
  std::string system;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  std::optional<std::int64_t> max_output_tokens;
  std::optional<std::int64_t> thinking_budget_tokens;  // extended thinking when set
  // Anthropic prompt-caching breakpoints on the system prompt, the tools and
  // the latest message; other providers cache automatically.
  bool prompt_caching = true;
};

}  // namespace ava::llm
