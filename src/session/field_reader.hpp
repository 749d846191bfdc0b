#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace ava::session {

// Reads typed fields from one JSON object, remembers the first problem, and
// records which keys it consumed so the rest can be kept as "extra".
class FieldReader {
 public:
  // What the shared decoders (content_codec, codec) see of values and arrays.
  using Value = nlohmann::json;
  using Array = nlohmann::json;

  FieldReader(const nlohmann::json& object, std::string context)
      : object_(object), context_(std::move(context)) {}

  std::string string(const char* key);
  std::string optional_string(const char* key);
  std::int64_t integer(const char* key);
  std::int64_t optional_integer(const char* key, std::int64_t fallback = 0);
  std::uint64_t unsigned_integer(const char* key);
  bool optional_bool(const char* key, bool fallback = false);
  // Required array/object; returns a null json on error.
  const nlohmann::json& array(const char* key);
  const nlohmann::json& optional_array(const char* key);
  const nlohmann::json& optional_any(const char* key);  // null if absent

  void fail(std::string message);
  bool ok() const { return !error_; }
  // The first problem; empty while ok().
  std::string message() const { return error_.value_or(std::string()); }
  // Keys present in the object but never read.
  nlohmann::json unread() const;

 private:
  const nlohmann::json* find(const char* key, bool required);

  const nlohmann::json& object_;
  std::string context_;
  std::set<std::string> read_;
  std::optional<std::string> error_;
};

}  // namespace ava::session
