#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ava/llm/items.hpp"
#include "session/field_reader.hpp"

namespace ava::session {

// JSON forms of llm content blocks inside events:
//   {"type":"text","text":...}
//   {"type":"image","media_type":...,"data":base64}
//   {"type":"thinking","text":...,"signature"?,"redacted_data"?,"encrypted_content"?,"provider_id"?}
//   {"type":"tool_call","id":...,"name":...,"arguments":"<JSON text as produced>"}
nlohmann::json encode_blocks(const std::vector<llm::ContentBlock>& blocks);
nlohmann::json encode_tool_content(const std::vector<llm::ToolResultContent>& content);
nlohmann::json encode_image(const llm::ImageBlock& image);
nlohmann::json encode_usage(const llm::Usage& usage);

// Decoders report problems through the reader of the enclosing event. They
// are written once for both readers: FieldReader over an nlohmann DOM and
// SpanReader over the JSON text (the fast path), so both read the same.
template <class Reader>
std::vector<llm::ContentBlock> decode_blocks(const typename Reader::Array& array, Reader& outer);
template <class Reader>
std::vector<llm::ToolResultContent> decode_tool_content(const typename Reader::Array& array,
                                                        Reader& outer);
template <class Reader>
llm::ImageBlock decode_image(const typename Reader::Value& object, Reader& outer);
template <class Reader>
llm::Usage decode_usage(const typename Reader::Value& object, Reader& outer);

}  // namespace ava::session
