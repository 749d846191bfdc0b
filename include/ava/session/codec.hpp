#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/session/event.hpp"

namespace ava::session {

// The explicit JSONL codec: one object per event, {"seq":N,"ts":MS,"type":...}
// followed by the kind's fields. Decoding validates required fields and their
// types; unknown kinds become UnknownEvent and unknown fields of known kinds
// land in Event::extra, so both survive a read/write round trip.

nlohmann::json encode(const Event& event);
// One JSON line including the trailing '\n'.
std::string encode_line(const Event& event);

Result<Event> decode(const nlohmann::json& object);
Result<Event> decode_line(std::string_view line);

}  // namespace ava::session
