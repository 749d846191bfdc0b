#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ava::content {

// Provider-neutral conversation items: what the model said and was told, and
// what a tool returns. The session log stores and rebuilds them, llm's
// adapters map them to and from each wire format, and tools return their
// blocks, so none of those packages needs another's copy (and the session log
// never links the HTTP stack). Every field a provider needs to accept a
// replayed item (signatures, encrypted reasoning, call ids) is kept verbatim.

struct TextBlock {
  std::string text;
  bool operator==(const TextBlock&) const = default;
};

struct ImageBlock {
  std::string media_type;  // image/png, image/jpeg, image/gif, image/webp
  std::string data;        // base64
  bool operator==(const ImageBlock&) const = default;
};

// Extended thinking (Anthropic) or reasoning (OpenAI Responses). Providers
// require the signature / encrypted content back unchanged on the next request.
struct ThinkingBlock {
  std::string text;
  std::string signature;          // Anthropic thinking signature
  std::string redacted_data;      // Anthropic redacted_thinking payload
  std::string encrypted_content;  // OpenAI Responses reasoning.encrypted_content
  std::string provider_id;        // e.g. the Responses reasoning item id
  bool operator==(const ThinkingBlock&) const = default;
};

struct ToolCallBlock {
  std::string id;  // provider call id (Anthropic tool_use id, OpenAI call_id)
  std::string name;
  std::string arguments;  // JSON text exactly as the model produced it
  bool operator==(const ToolCallBlock&) const = default;
};

// Content a tool returns: text (valid UTF-8) or an image.
using ToolResultContent = std::variant<TextBlock, ImageBlock>;

struct ToolResultBlock {
  std::string call_id;
  std::vector<ToolResultContent> content;
  bool is_error = false;
  bool operator==(const ToolResultBlock&) const = default;
};

using ContentBlock =
    std::variant<TextBlock, ImageBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock>;

enum class Role { user, assistant, tool };

struct Message {
  Role role = Role::user;
  std::vector<ContentBlock> content;
  bool operator==(const Message&) const = default;
};

struct ToolSpec {
  std::string name;
  std::string description;
  nlohmann::json parameters;  // JSON Schema object
  bool operator==(const ToolSpec&) const = default;
};

struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  Usage& operator+=(const Usage& other);
  bool operator==(const Usage&) const = default;
};

inline Usage& Usage::operator+=(const Usage& other) {
  input_tokens += other.input_tokens;
  output_tokens += other.output_tokens;
  cache_read_tokens += other.cache_read_tokens;
  cache_write_tokens += other.cache_write_tokens;
  reasoning_tokens += other.reasoning_tokens;
  return *this;
}

}  // namespace ava::content
