#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

// The one way JSON from outside the process is decoded (API bodies, MCP
// messages, provider bodies, OAuth metadata, settings and store files), and
// typed field access that never throws.
namespace ava::base {

struct JsonLimits {
  // Nesting of arrays and objects. Copying, comparing and dumping a value
  // recurse once per level, so an unbounded depth is a stack overflow.
  std::size_t max_depth = 64;
  std::size_t max_bytes = std::size_t{64} * 1024 * 1024;
};

// The deepest nesting of arrays and objects in `text`, counted without
// parsing (strings skipped); stops counting past `stop_after`.
std::size_t json_depth(std::string_view text, std::size_t stop_after);

// What parse_json checks before parsing (size, a raw NUL, nesting), for a
// caller that parses into another type, such as nlohmann::ordered_json to
// keep a peer's key order.
Result<void> check_json_text(std::string_view text, const JsonLimits& limits = {});

// Parses untrusted JSON: parse error (with the byte offset) for malformed
// text, limit_exceeded for a document over max_bytes or nested deeper than
// max_depth. Never throws.
Result<nlohmann::json> parse_json(std::string_view text, const JsonLimits& limits = {});

// `object[key]` when `object` is an object holding `key` with a value of
// type T; nullopt otherwise (missing, null, another type, an integer out of
// T's range). T: std::string, bool, an integer type, double, or
// nlohmann::json (any value).
template <class T>
std::optional<T> json_field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  const nlohmann::json& value = *it;
  if constexpr (std::is_same_v<T, nlohmann::json>) {
    return value;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) return std::nullopt;
    return value.get_ref<const std::string&>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) return std::nullopt;
    return value.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (value.is_number_unsigned()) {
      const auto n = value.get<std::uint64_t>();
      if (n > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return std::nullopt;
      return static_cast<T>(n);
    }
    if (!value.is_number_integer()) return std::nullopt;
    const auto n = value.get<std::int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (n < 0 || static_cast<std::uint64_t>(n) > std::numeric_limits<T>::max())
        return std::nullopt;
    } else {
      if (n < std::numeric_limits<T>::min() || n > std::numeric_limits<T>::max())
        return std::nullopt;
    }
    return static_cast<T>(n);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) return std::nullopt;
    return value.get<T>();
  } else {
    static_assert(std::is_same_v<T, void>, "json_field: unsupported type");
  }
}

// json_field, or `fallback` when the field is missing or of another type:
// the non-throwing replacement for nlohmann's `.value(key, default)`.
template <class T>
T json_value(const nlohmann::json& object, std::string_view key, T fallback) {
  auto found = json_field<T>(object, key);
  return found ? std::move(*found) : std::move(fallback);
}
inline std::string json_value(const nlohmann::json& object, std::string_view key,
                              const char* fallback) {
  return json_value<std::string>(object, key, std::string(fallback));
}

}  // namespace ava::base
