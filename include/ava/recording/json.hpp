#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/llm/items.hpp"
#include "ava/llm/stream.hpp"

// The JSON of a recording's provider exchanges (docs/eval.md): the neutral
// request, each stream event in order, and the assembled response, with the
// API's camelCase keys. Decoding is strict (every field typed, unknown
// "type" and enum names refused) because replay feeds what it decodes to an
// agent as if a provider had sent it.
namespace ava::recording {

nlohmann::json encode_request(const llm::Request& request);
nlohmann::json encode_event(const llm::StreamEvent& event);
nlohmann::json encode_response(const llm::Response& response);
nlohmann::json encode_message(const llm::Message& message);
nlohmann::json encode_tool_content(const std::vector<content::ToolResultContent>& content);

// Errors name the field, e.g. "messages[2].content[0].type: unknown block
// kind \"video\"".
Result<llm::Request> decode_request(const nlohmann::json& value);
Result<llm::StreamEvent> decode_event(const nlohmann::json& value);
Result<llm::Response> decode_response(const nlohmann::json& value);
Result<std::vector<content::ToolResultContent>> decode_tool_content(const nlohmann::json& value);

// The first place two JSON values differ, as "path: recorded X, now Y" with
// long strings cut around the first differing character; empty when equal.
std::string first_difference(const nlohmann::json& recorded, const nlohmann::json& now);

}  // namespace ava::recording
