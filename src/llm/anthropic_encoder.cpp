#include <string>

#include "ava/llm/encode.hpp"
#include "llm/encode_support.hpp"

namespace ava::llm {

namespace {

using nlohmann::json;

constexpr std::int64_t default_max_tokens = 8192;

json image_json(const ImageBlock& image) {
  return json{
      {"type", "image"},
      {"source", {{"type", "base64"}, {"media_type", image.media_type}, {"data", image.data}}}};
}

// One neutral block as Anthropic content, or null when Anthropic cannot take it.
json block_json(const ContentBlock& block) {
  if (const auto* text = std::get_if<TextBlock>(&block)) {
    if (text->text.empty()) return nullptr;  // the API rejects empty text blocks
    return json{{"type", "text"}, {"text", text->text}};
  }
  if (const auto* image = std::get_if<ImageBlock>(&block)) return image_json(*image);
  if (const auto* thinking = std::get_if<ThinkingBlock>(&block)) {
    if (!thinking->redacted_data.empty()) {
      return json{{"type", "redacted_thinking"}, {"data", thinking->redacted_data}};
    }
    // Thinking without a signature (from another provider) would be rejected.
    if (thinking->signature.empty()) return nullptr;
    return json{
        {"type", "thinking"}, {"thinking", thinking->text}, {"signature", thinking->signature}};
  }
  if (const auto* call = std::get_if<ToolCallBlock>(&block)) {
    return json{{"type", "tool_use"},
                {"id", call->id},
                {"name", call->name},
                {"input", detail::arguments_object(call->arguments)}};
  }
  const auto& result = std::get<ToolResultBlock>(block);
  json content = json::array();
  for (const auto& part : result.content) {
    if (const auto* text = std::get_if<TextBlock>(&part)) {
      content.push_back(json{{"type", "text"}, {"text", text->text}});
    } else {
      content.push_back(image_json(std::get<ImageBlock>(part)));
    }
  }
  json out{{"type", "tool_result"}, {"tool_use_id", result.call_id}, {"content", content}};
  if (result.is_error) out["is_error"] = true;
  return out;
}

}  // namespace

std::string encode_anthropic_request(const Request& request) {
  json body{{"model", request.model},
            {"max_tokens", request.max_output_tokens.value_or(default_max_tokens)},
            {"stream", true}};
  json cache = {{"type", "ephemeral"}};
  if (!request.system.empty()) {
    json system_block{{"type", "text"}, {"text", request.system}};
    if (request.prompt_caching) system_block["cache_control"] = cache;
    body["system"] = json::array({system_block});
  }
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const auto& tool : request.tools) {
      json schema = tool.parameters.is_object() ? tool.parameters : json{{"type", "object"}};
      tools.push_back(
          json{{"name", tool.name}, {"description", tool.description}, {"input_schema", schema}});
    }
    if (request.prompt_caching) tools.back()["cache_control"] = cache;
    body["tools"] = tools;
  }
  if (request.thinking_budget_tokens) {
    body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *request.thinking_budget_tokens}};
  }
  // Tool results travel in user messages; consecutive messages of one role
  // are merged so the roles alternate as the API expects.
  json messages = json::array();
  for (const auto& message : request.messages) {
    std::string role = message.role == Role::assistant ? "assistant" : "user";
    json content = json::array();
    for (const auto& block : message.content) {
      if (json encoded = block_json(block); !encoded.is_null())
        content.push_back(std::move(encoded));
    }
    if (content.empty()) continue;
    if (!messages.empty() && messages.back()["role"] == role) {
      for (auto& part : content) messages.back()["content"].push_back(std::move(part));
    } else {
      messages.push_back(json{{"role", role}, {"content", content}});
    }
  }
  if (request.prompt_caching && !messages.empty()) {
    // Thinking blocks cannot carry cache_control; mark the last other block.
    json& content = messages.back()["content"];
    for (auto part = content.rbegin(); part != content.rend(); ++part) {
      std::string type = (*part)["type"];
      if (type != "thinking" && type != "redacted_thinking") {
        (*part)["cache_control"] = cache;
        break;
      }
    }
  }
  body["messages"] = messages;
  return detail::dump_body(body);
}

}  // namespace ava::llm
