#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ava/session/event.hpp"

namespace ava::session {

// What was said in a log, for a reader that needs its gist (memory
// consolidation): each input as typed ("User: ...") and each answer's text
// ("Assistant: ..."), in order; tool calls, results and thinking left out.
// Over `max_bytes`, the beginning is cut (the end is the newest), on a
// character boundary, with a note of how much was cut.
std::string conversation_digest(const std::vector<Event>& events, std::size_t max_bytes);

}  // namespace ava::session
