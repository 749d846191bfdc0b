#pragma once

#include <optional>
#include <string>
#include <string_view>

// Text helpers for tool output (the tool package and the MCP adapter).
namespace ava::tool::text {

// Replaces every invalid UTF-8 sequence with U+FFFD, so tool output can always
// be encoded as JSON (process output and files are arbitrary bytes).
std::string valid_utf8(std::string_view bytes);

// A NUL byte, or a sample that is mostly not UTF-8, means binary.
bool looks_binary(std::string_view sample);

// "12.3 KiB" style sizes for messages.
std::string human_bytes(std::size_t bytes);

}  // namespace ava::tool::text
