#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ava::session {

// Compact JSON serialisation of an event object, equal in output to
// nlohmann's dump() with invalid UTF-8 replaced by U+FFFD, but copying runs
// of plain bytes at once: string escaping dominated the append path.
void write_json(const nlohmann::json& value, std::string& out);

// One JSON string (quotes included), escaped exactly as write_json does.
void write_json_string(std::string_view text, std::string& out);

}  // namespace ava::session
