#include <string>

#include "ava/llm/encode.hpp"
#include "llm/encode_support.hpp"

namespace ava::llm {

namespace {

using nlohmann::json;

json image_part(const ImageBlock& image) {
  return json{{"type", "image_url"}, {"image_url", {{"url", detail::data_url(image)}}}};
}

// A user message: a plain string when it is only text (every compatible
// server accepts that), else content parts.
void append_user(json& messages, const std::vector<json>& parts, const std::string& text,
                 bool has_image) {
  if (parts.empty()) return;
  if (!has_image) {
    messages.push_back(json{{"role", "user"}, {"content", text}});
  } else {
    messages.push_back(json{{"role", "user"}, {"content", parts}});
  }
}

void append_message(json& messages, const Message& message) {
  if (message.role == Role::assistant) {
    std::string text;
    json calls = json::array();
    for (const auto& block : message.content) {
      if (const auto* part = std::get_if<TextBlock>(&block)) text += part->text;
      if (const auto* call = std::get_if<ToolCallBlock>(&block)) {
        calls.push_back(json{{"id", call->id},
                             {"type", "function"},
                             {"function", {{"name", call->name}, {"arguments", call->arguments}}}});
      }
    }
    json out{{"role", "assistant"}, {"content", text.empty() ? json(nullptr) : json(text)}};
    if (!calls.empty()) out["tool_calls"] = calls;
    if (!text.empty() || !calls.empty()) messages.push_back(std::move(out));
    return;
  }
  // User and tool messages: tool results become role "tool" messages; images
  // inside a tool result follow in a user message, as tool messages take text.
  std::vector<json> parts;
  std::string text;
  bool has_image = false;
  std::vector<json> result_images;
  for (const auto& block : message.content) {
    if (const auto* part = std::get_if<TextBlock>(&block)) {
      parts.push_back(json{{"type", "text"}, {"text", part->text}});
      text += part->text;
    } else if (const auto* image = std::get_if<ImageBlock>(&block)) {
      parts.push_back(image_part(*image));
      has_image = true;
    } else if (const auto* result = std::get_if<ToolResultBlock>(&block)) {
      messages.push_back(json{{"role", "tool"},
                              {"tool_call_id", result->call_id},
                              {"content", detail::tool_result_text(*result)}});
      for (const auto& content : result->content) {
        if (const auto* result_image = std::get_if<ImageBlock>(&content)) {
          result_images.push_back(image_part(*result_image));
        }
      }
    }
  }
  if (!result_images.empty())
    messages.push_back(json{{"role", "user"}, {"content", result_images}});
  append_user(messages, parts, text, has_image);
}

}  // namespace

std::string encode_chat_request(const Request& request) {
  json body{
      {"model", request.model}, {"stream", true}, {"stream_options", {{"include_usage", true}}}};
  if (request.max_output_tokens) body["max_tokens"] = *request.max_output_tokens;
  json messages = json::array();
  if (!request.system.empty())
    messages.push_back(json{{"role", "system"}, {"content", request.system}});
  for (const auto& message : request.messages) append_message(messages, message);
  body["messages"] = messages;
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const auto& tool : request.tools) {
      json schema = tool.parameters.is_object() ? tool.parameters : json{{"type", "object"}};
      tools.push_back(
          json{{"type", "function"},
               {"function",
                {{"name", tool.name}, {"description", tool.description}, {"parameters", schema}}}});
    }
    body["tools"] = tools;
  }
  return detail::dump_body(body);
}

}  // namespace ava::llm
