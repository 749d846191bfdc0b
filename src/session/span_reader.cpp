#include "session/span_reader.hpp"

namespace ava::session {

static_assert(json_text::Object::kMaxMembers <= 64, "read_ holds one bit per member");

SpanReader::SpanReader(const Value& object, std::string_view /*context*/)
    : ok_(object_.index(object)) {}

SpanReader::SpanReader(std::string_view line) : ok_(object_.index_document(line)) {}

const SpanReader::Value* SpanReader::find(const char* key, bool required) {
  const int at = object_.find(key);
  if (at < 0) {
    if (required) ok_ = false;
    return nullptr;
  }
  read_ |= std::uint64_t{1} << at;
  const Value& value = object_.members()[static_cast<std::size_t>(at)].value;
  if (value.is_null() && required) {
    ok_ = false;
    return nullptr;
  }
  return &value;
}

std::string SpanReader::string(const char* key) {
  const Value* value = find(key, true);
  if (value == nullptr) return {};
  if (!value->is_string()) {
    ok_ = false;
    return {};
  }
  return value->string();
}

std::string SpanReader::optional_string(const char* key) {
  const Value* value = find(key, false);
  if (value == nullptr || value->is_null()) return {};
  if (!value->is_string()) {
    ok_ = false;
    return {};
  }
  return value->string();
}

std::int64_t SpanReader::integer(const char* key) {
  const Value* value = find(key, true);
  if (value == nullptr) return 0;
  const auto number = value->int64();
  if (!number) ok_ = false;
  return number.value_or(0);
}

std::int64_t SpanReader::optional_integer(const char* key, std::int64_t fallback) {
  const Value* value = find(key, false);
  if (value == nullptr || value->is_null()) return fallback;
  const auto number = value->int64();
  if (!number) ok_ = false;
  return number.value_or(fallback);
}

std::uint64_t SpanReader::unsigned_integer(const char* key) {
  const Value* value = find(key, true);
  if (value == nullptr) return 0;
  const auto number = value->uint64();
  if (!number) ok_ = false;
  return number.value_or(0);
}

bool SpanReader::optional_bool(const char* key, bool fallback) {
  const Value* value = find(key, false);
  if (value == nullptr || value->is_null()) return fallback;
  if (!value->is_boolean()) {
    ok_ = false;
    return fallback;
  }
  return value->truth();
}

SpanReader::Array SpanReader::array(const char* key) {
  const Value* value = find(key, true);
  if (value == nullptr) return {};
  if (!value->is_array()) {
    ok_ = false;
    return {};
  }
  return Array(value->text);
}

SpanReader::Array SpanReader::optional_array(const char* key) {
  const Value* value = find(key, false);
  if (value == nullptr || value->is_null()) return {};
  if (!value->is_array()) {
    ok_ = false;
    return {};
  }
  return Array(value->text);
}

SpanReader::Value SpanReader::optional_any(const char* key) {
  const Value* value = find(key, false);
  return value == nullptr ? Value{} : *value;
}

bool SpanReader::unread(nlohmann::json& out) const {
  const auto members = object_.members();
  for (std::size_t i = 0; i < members.size(); ++i) {
    if ((read_ & (std::uint64_t{1} << i)) != 0) continue;
    auto value = nlohmann::json::parse(members[i].value.text, nullptr, false);
    if (value.is_discarded()) return false;
    out[std::string(members[i].key)] = std::move(value);
  }
  return true;
}

nlohmann::json to_json(const json_text::Value& value) {
  if (value.text.empty() || value.is_null()) return nullptr;
  // The text was validated, so this parse cannot fail.
  return nlohmann::json::parse(value.text, nullptr, false);
}

}  // namespace ava::session
