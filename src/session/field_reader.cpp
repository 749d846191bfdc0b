#include "session/field_reader.hpp"

#include <fmt/format.h>

namespace ava::session {

namespace {
const nlohmann::json kNull;
const nlohmann::json kEmptyArray = nlohmann::json::array();
}  // namespace

void FieldReader::fail(std::string message) {
  if (!error_) error_ = fmt::format("{}: {}", context_, message);
}

const nlohmann::json* FieldReader::find(const char* key, bool required) {
  read_.insert(key);
  auto it = object_.find(key);
  if (it == object_.end() || (it->is_null() && required)) {
    if (required) fail(fmt::format("missing field '{}'", key));
    return nullptr;
  }
  return &*it;
}

std::string FieldReader::string(const char* key) {
  const auto* value = find(key, true);
  if (value == nullptr) return {};
  if (!value->is_string()) {
    fail(fmt::format("field '{}' must be a string", key));
    return {};
  }
  return value->get<std::string>();
}

std::string FieldReader::optional_string(const char* key) {
  const auto* value = find(key, false);
  if (value == nullptr || value->is_null()) return {};
  if (!value->is_string()) {
    fail(fmt::format("field '{}' must be a string", key));
    return {};
  }
  return value->get<std::string>();
}

std::int64_t FieldReader::integer(const char* key) {
  const auto* value = find(key, true);
  if (value == nullptr) return 0;
  if (!value->is_number_integer()) {
    fail(fmt::format("field '{}' must be an integer", key));
    return 0;
  }
  return value->get<std::int64_t>();
}

std::int64_t FieldReader::optional_integer(const char* key, std::int64_t fallback) {
  const auto* value = find(key, false);
  if (value == nullptr || value->is_null()) return fallback;
  if (!value->is_number_integer()) {
    fail(fmt::format("field '{}' must be an integer", key));
    return fallback;
  }
  return value->get<std::int64_t>();
}

std::uint64_t FieldReader::unsigned_integer(const char* key) {
  const auto* value = find(key, true);
  if (value == nullptr) return 0;
  if (!value->is_number_unsigned()) {
    fail(fmt::format("field '{}' must be a non-negative integer", key));
    return 0;
  }
  return value->get<std::uint64_t>();
}

bool FieldReader::optional_bool(const char* key, bool fallback) {
  const auto* value = find(key, false);
  if (value == nullptr || value->is_null()) return fallback;
  if (!value->is_boolean()) {
    fail(fmt::format("field '{}' must be a boolean", key));
    return fallback;
  }
  return value->get<bool>();
}

const nlohmann::json& FieldReader::array(const char* key) {
  const auto* value = find(key, true);
  if (value == nullptr) return kEmptyArray;
  if (!value->is_array()) {
    fail(fmt::format("field '{}' must be an array", key));
    return kEmptyArray;
  }
  return *value;
}

const nlohmann::json& FieldReader::optional_array(const char* key) {
  const auto* value = find(key, false);
  if (value == nullptr || value->is_null()) return kEmptyArray;
  if (!value->is_array()) {
    fail(fmt::format("field '{}' must be an array", key));
    return kEmptyArray;
  }
  return *value;
}

const nlohmann::json& FieldReader::optional_any(const char* key) {
  const auto* value = find(key, false);
  return value == nullptr ? kNull : *value;
}

nlohmann::json FieldReader::unread() const {
  nlohmann::json rest = nlohmann::json::object();
  for (const auto& [key, value] : object_.items()) {
    if (!read_.contains(key)) rest[key] = value;
  }
  return rest;
}

}  // namespace ava::session
