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

// Decoders report problems through the reader of the enclosing event.
std::vector<llm::ContentBlock> decode_blocks(const nlohmann::json& array, FieldReader& outer);
std::vector<llm::ToolResultContent> decode_tool_content(const nlohmann::json& array,
                                                        FieldReader& outer);
llm::ImageBlock decode_image(const nlohmann::json& object, FieldReader& outer);
llm::Usage decode_usage(const nlohmann::json& object, FieldReader& outer);

}  // namespace ava::session
