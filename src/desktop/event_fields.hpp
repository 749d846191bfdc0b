#pragma once

#include <cstdint>
#include <string>

#include <QString>
#include <nlohmann/json.hpp>

// Reading fields of an event from the stream (untrusted JSON): a missing
// field or one of another type reads as empty or the fallback.
namespace ava::desktop::fields {

inline QString qs(const std::string& text) { return QString::fromStdString(text); }

inline std::string str(const nlohmann::json& object, const char* field) {
  if (!object.is_object()) return {};
  auto found = object.find(field);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string{};
}

inline std::int64_t num(const nlohmann::json& object, const char* field,
                        std::int64_t fallback = 0) {
  if (!object.is_object()) return fallback;
  auto found = object.find(field);
  return found != object.end() && found->is_number() ? found->get<std::int64_t>() : fallback;
}

}  // namespace ava::desktop::fields
