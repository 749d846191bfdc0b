#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"
#include "ava/session/event.hpp"

namespace ava::session {

// The two paths behind the codec's line functions. The typed paths read and
// write JSON text straight from and into the event structs; the DOM paths go
// through nlohmann and are the reference: the typed ones produce the same
// result or decline, and then the DOM path runs. Tests compare them.

// Decodes one line; nullopt if the fast path declines (an unknown kind, or
// anything it does not decode exactly as decode_line_dom, errors included).
std::optional<Event> decode_line_fast(std::string_view line);
// The same into `event` (a default-constructed one): false if it declines,
// and `event` is then in an unspecified state.
bool decode_line_fast(std::string_view line, Event& event);
Result<Event> decode_line_dom(std::string_view line);

// Appends the event's JSON line, '\n' included, byte-identical to
// write_event_line_dom. False, with nothing appended, for an unknown kind or
// an event carrying extra fields: those go through the DOM.
bool write_event_line(const Event& event, std::string& out);
void write_event_line_dom(const Event& event, std::string& out);

// The typed path if it applies, else the DOM path: what encode_line does.
void append_event_line(const Event& event, std::string& out);

}  // namespace ava::session
