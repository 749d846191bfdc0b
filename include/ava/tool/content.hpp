#pragma once

#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/content/items.hpp"

namespace ava::tool {

// Content a tool returns to the model: the provider-neutral blocks of the
// content package, so the agent hands them to the model as they are.
using TextContent = content::TextBlock;    // valid UTF-8
using ImageContent = content::ImageBlock;  // media type and base64 data
using ContentBlock = content::ToolResultContent;

// What the model sees of one tool call. is_error marks a failure the model
// can read and act on (a missing file, an ambiguous edit, a non-zero exit);
// failures of the machinery itself are an ava::Error instead.
struct ToolResult {
  std::vector<ContentBlock> content;
  bool is_error = false;
  nlohmann::json details = nlohmann::json::object();  // for UIs, e.g. {"diff": ...}

  static ToolResult text(std::string text, nlohmann::json details = nlohmann::json::object());
  static ToolResult error(std::string text, nlohmann::json details = nlohmann::json::object());

  // All text blocks joined by newlines, for logs and tests.
  std::string joined_text() const;
};

}  // namespace ava::tool
