#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "ava/llm/items.hpp"

namespace ava::llm::detail {

// Tool arguments as a JSON object; text that is not a JSON object (a model's
// malformed call being replayed, or one nested past base::JsonLimits)
// becomes {} so the request stays valid.
inline nlohmann::json arguments_object(const std::string& arguments) {
  auto parsed = base::parse_json(arguments);
  if (!parsed || !parsed->is_object()) return nlohmann::json::object();
  return std::move(*parsed);
}

inline std::string data_url(const ImageBlock& image) {
  return "data:" + image.media_type + ";base64," + image.data;
}

inline std::string dump_body(const nlohmann::json& body) {
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The text parts of a tool result, joined, for wire formats that take a string.
inline std::string tool_result_text(const ToolResultBlock& result) {
  std::string text;
  for (const auto& part : result.content) {
    if (const auto* block = std::get_if<TextBlock>(&part)) {
      if (!text.empty()) text += "\n";
      text += block->text;
    }
  }
  return text;
}

}  // namespace ava::llm::detail
