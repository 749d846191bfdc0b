#pragma once

#include <string>
#include <string_view>

#include "ava/llm/stream.hpp"

namespace ava::llm {

std::string_view to_string(StopReason reason);
std::string_view to_string(ErrorKind kind);

// One JSON object per line (no trailing newline), camelCase keys, tagged by
// "type": text_delta, thinking_delta, tool_call_start, tool_call_delta,
// tool_call_complete, usage, stop, error. Used by `ava debug stream`.
std::string event_json_line(const StreamEvent& event);

// {"type":"summary","text":…,"thinking":…,"toolCalls":[{"id","name","arguments"}],
//  "stopReason":…,"providerStopReason":…,"usage":{…},"error":null|{…}}.
// Tool arguments are the parsed JSON value when they parse, else the raw text.
std::string summary_json_line(const Response& response);

}  // namespace ava::llm
