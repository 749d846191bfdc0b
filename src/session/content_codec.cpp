#include "session/content_codec.hpp"

#include "session/overload.hpp"
#include "session/span_reader.hpp"

#include <fmt/format.h>

namespace ava::session {

namespace {

void put_if(nlohmann::json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

}  // namespace

nlohmann::json encode_image(const content::ImageBlock& image) {
  return {{"type", "image"}, {"media_type", image.media_type}, {"data", image.data}};
}

nlohmann::json encode_blocks(const std::vector<content::ContentBlock>& blocks) {
  auto array = nlohmann::json::array();
  for (const auto& block : blocks) {
    array.push_back(std::visit(Overload{
                                   [](const content::TextBlock& b) -> nlohmann::json {
                                     return {{"type", "text"}, {"text", b.text}};
                                   },
                                   [](const content::ImageBlock& b) { return encode_image(b); },
                                   [](const content::ThinkingBlock& b) {
                                     nlohmann::json o = {{"type", "thinking"}, {"text", b.text}};
                                     put_if(o, "signature", b.signature);
                                     put_if(o, "redacted_data", b.redacted_data);
                                     put_if(o, "encrypted_content", b.encrypted_content);
                                     put_if(o, "provider_id", b.provider_id);
                                     return o;
                                   },
                                   [](const content::ToolCallBlock& b) -> nlohmann::json {
                                     return {{"type", "tool_call"},
                                             {"id", b.id},
                                             {"name", b.name},
                                             {"arguments", b.arguments}};
                                   },
                                   [](const content::ToolResultBlock& b) -> nlohmann::json {
                                     return {{"type", "tool_result"},
                                             {"call_id", b.call_id},
                                             {"is_error", b.is_error},
                                             {"content", encode_tool_content(b.content)}};
                                   },
                               },
                               block));
  }
  return array;
}

nlohmann::json encode_tool_content(const std::vector<content::ToolResultContent>& content) {
  auto array = nlohmann::json::array();
  for (const auto& part : content) {
    if (const auto* text = std::get_if<content::TextBlock>(&part)) {
      array.push_back({{"type", "text"}, {"text", text->text}});
    } else {
      array.push_back(encode_image(std::get<content::ImageBlock>(part)));
    }
  }
  return array;
}

nlohmann::json encode_usage(const content::Usage& usage) {
  return {{"input_tokens", usage.input_tokens},
          {"output_tokens", usage.output_tokens},
          {"cache_read_tokens", usage.cache_read_tokens},
          {"cache_write_tokens", usage.cache_write_tokens},
          {"reasoning_tokens", usage.reasoning_tokens}};
}

template <class Reader>
content::ImageBlock decode_image(const typename Reader::Value& object, Reader& outer) {
  Reader r(object, "image");
  content::ImageBlock image{.media_type = r.string("media_type"), .data = r.string("data")};
  if (!r.ok()) outer.fail(r.message());
  return image;
}

template <class Reader>
std::vector<content::ContentBlock> decode_blocks(const typename Reader::Array& array,
                                                 Reader& outer) {
  std::vector<content::ContentBlock> blocks;
  for (const auto& item : array) {
    if (!item.is_object()) {
      outer.fail("content blocks must be objects");
      break;
    }
    Reader r(item, "content block");
    const std::string type = r.string("type");
    if (type == "text") {
      blocks.emplace_back(content::TextBlock{r.string("text")});
    } else if (type == "image") {
      blocks.emplace_back(decode_image<Reader>(item, outer));
    } else if (type == "thinking") {
      blocks.emplace_back(
          content::ThinkingBlock{.text = r.string("text"),
                                 .signature = r.optional_string("signature"),
                                 .redacted_data = r.optional_string("redacted_data"),
                                 .encrypted_content = r.optional_string("encrypted_content"),
                                 .provider_id = r.optional_string("provider_id")});
    } else if (type == "tool_call") {
      blocks.emplace_back(content::ToolCallBlock{
          .id = r.string("id"), .name = r.string("name"), .arguments = r.string("arguments")});
    } else if (type == "tool_result") {
      content::ToolResultBlock result{
          .call_id = r.string("call_id"), .content = {}, .is_error = r.optional_bool("is_error")};
      result.content = decode_tool_content<Reader>(r.array("content"), r);
      blocks.emplace_back(std::move(result));
    } else if (r.ok()) {
      r.fail(fmt::format("unknown content block type '{}'", type));
    }
    if (!r.ok()) {
      outer.fail(r.message());
      break;
    }
  }
  return blocks;
}

template <class Reader>
std::vector<content::ToolResultContent> decode_tool_content(const typename Reader::Array& array,
                                                            Reader& outer) {
  std::vector<content::ToolResultContent> content;
  for (const auto& item : array) {
    if (!item.is_object()) {
      outer.fail("tool content must be objects");
      break;
    }
    Reader r(item, "tool content");
    const std::string type = r.string("type");
    if (type == "text") {
      content.emplace_back(content::TextBlock{r.string("text")});
    } else if (type == "image") {
      content.emplace_back(decode_image<Reader>(item, r));
    } else if (r.ok()) {
      r.fail(fmt::format("unknown tool content type '{}'", type));
    }
    if (!r.ok()) {
      outer.fail(r.message());
      break;
    }
  }
  return content;
}

template <class Reader>
content::Usage decode_usage(const typename Reader::Value& object, Reader& outer) {
  if (!object.is_object()) {
    outer.fail("usage must be an object");
    return {};
  }
  Reader r(object, "usage");
  content::Usage usage{.input_tokens = r.optional_integer("input_tokens"),
                       .output_tokens = r.optional_integer("output_tokens"),
                       .cache_read_tokens = r.optional_integer("cache_read_tokens"),
                       .cache_write_tokens = r.optional_integer("cache_write_tokens"),
                       .reasoning_tokens = r.optional_integer("reasoning_tokens")};
  if (!r.ok()) outer.fail(r.message());
  return usage;
}

// The two readers the decoders are used with.
template std::vector<content::ContentBlock> decode_blocks(const FieldReader::Array&, FieldReader&);
template std::vector<content::ContentBlock> decode_blocks(const SpanReader::Array&, SpanReader&);
template std::vector<content::ToolResultContent> decode_tool_content(const FieldReader::Array&,
                                                                     FieldReader&);
template std::vector<content::ToolResultContent> decode_tool_content(const SpanReader::Array&,
                                                                     SpanReader&);
template content::ImageBlock decode_image(const FieldReader::Value&, FieldReader&);
template content::ImageBlock decode_image(const SpanReader::Value&, SpanReader&);
template content::Usage decode_usage(const FieldReader::Value&, FieldReader&);
template content::Usage decode_usage(const SpanReader::Value&, SpanReader&);

}  // namespace ava::session
