#pragma once

#include <string>

#include "ava/llm/decoder.hpp"
#include "ava/llm/mock_provider.hpp"

namespace ava::test {

// Renders one scripted response (the mock script format) as the SSE body a
// real provider would send in that wire format: text, thinking, tool calls
// with their arguments in several fragments, usage, the stop reason and the
// terminal event. A scripted error becomes that format's in-stream error and
// the body ends there. Tool arguments given as a string in the script are
// sent verbatim, so malformed JSON can be played.
std::string render_sse(llm::WireApi api, const llm::MockResponse& response);

}  // namespace ava::test
