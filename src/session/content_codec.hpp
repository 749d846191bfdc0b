#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ava/content/items.hpp"
#include "session/field_reader.hpp"

namespace ava::session {

// JSON forms of llm content blocks inside events:
//   {"type":"text","text":...}
//   {"type":"image","media_type":...,"data":base64}
//   {"type":"thinking","text":...,"signature"?,"redacted_data"?,"encrypted_content"?,"provider_id"?}
//   {"type":"tool_call","id":...,"name":...,"arguments":"<JSON text as produced>"}
nlohmann::json encode_blocks(const std::vector<content::ContentBlock>& blocks);
nlohmann::json encode_tool_content(const std::vector<content::ToolResultContent>& content);
nlohmann::json encode_image(const content::ImageBlock& image);
nlohmann::json encode_usage(const content::Usage& usage);

// Decoders report problems through the reader of the enclosing event. They
// are written once for both readers: FieldReader over an nlohmann DOM and
// SpanReader over the JSON text (the fast path), so both read the same.
template <class Reader>
std::vector<content::ContentBlock> decode_blocks(const typename Reader::Array& array,
                                                 Reader& outer);
template <class Reader>
std::vector<content::ToolResultContent> decode_tool_content(const typename Reader::Array& array,
                                                            Reader& outer);
template <class Reader>
content::ImageBlock decode_image(const typename Reader::Value& object, Reader& outer);
template <class Reader>
content::Usage decode_usage(const typename Reader::Value& object, Reader& outer);

}  // namespace ava::session
