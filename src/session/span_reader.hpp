#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "session/json_text.hpp"

namespace ava::session {

// FieldReader's twin over JSON text instead of an nlohmann DOM, for the fast
// decode path: the same fields mean the same values. It gives no messages:
// any problem only marks it failed, and the caller then decodes the line
// with the DOM path, which names the problem. Objects it cannot index
// (see json_text::Object) fail it the same way.
class SpanReader {
 public:
  using Value = json_text::Value;
  using Array = json_text::Array;

  // An object inside text validated before (an element, a member's value).
  SpanReader(const Value& object, std::string_view context);
  // The event's whole line: validated here, first.
  explicit SpanReader(std::string_view line);

  std::string string(const char* key);
  std::string optional_string(const char* key);
  std::int64_t integer(const char* key);
  std::int64_t optional_integer(const char* key, std::int64_t fallback = 0);
  std::uint64_t unsigned_integer(const char* key);
  bool optional_bool(const char* key, bool fallback = false);
  // Required array; empty on error.
  Array array(const char* key);
  Array optional_array(const char* key);
  Value optional_any(const char* key);  // null if absent

  void fail(const std::string& /*message*/) { ok_ = false; }
  bool ok() const { return ok_; }
  std::string message() const { return {}; }
  // Members never read, as DOM values into `out` (an object); false if one
  // does not parse, which cannot happen for text this reader indexed.
  bool unread(nlohmann::json& out) const;

 private:
  // The member, marked as read; nullptr if absent, or null and required.
  const Value* find(const char* key, bool required);

  json_text::Object object_;
  std::uint64_t read_ = 0;  // bit i: member i was asked for
  bool ok_ = true;
};

// The nlohmann value of a field read by either reader: details and other
// free-form fields stay DOM values in the event structs.
inline nlohmann::json to_json(const nlohmann::json& value) { return value; }
nlohmann::json to_json(const json_text::Value& value);

}  // namespace ava::session
