#pragma once

#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ava::tool {

// Content a tool returns to the model. The tool package keeps its own blocks
// (it may not depend on llm); the agent maps them onto provider items.
struct TextContent {
  std::string text;  // valid UTF-8
};

struct ImageContent {
  std::string media_type;  // image/png, image/jpeg, image/gif, image/webp
  std::string data_base64;
};

using ContentBlock = std::variant<TextContent, ImageContent>;

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
