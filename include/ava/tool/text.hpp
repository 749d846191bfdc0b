#pragma once

#include <optional>
#include <string>
#include <string_view>

// Text helpers for tool output (the tool package and the MCP adapter).
namespace ava::tool::text {

// A NUL byte, or a sample that is mostly not UTF-8, means binary.
bool looks_binary(std::string_view sample);

// "12.3 KiB" style sizes for messages.
std::string human_bytes(std::size_t bytes);

}  // namespace ava::tool::text
