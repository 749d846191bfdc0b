// ava::base::parse_json, the entry point for all JSON from outside the
// process, and the typed field access on what it returns.
//
// Checks: a success read the whole text (no NUL) and is within the limits
// (depth counted on the value itself); json_depth counts exactly the depth
// nlohmann sees; dump() parses back to an equal value whose dump is the
// same; json_field never throws and its integer answers fit their type and
// equal the stored number.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ava/base/json.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using nlohmann::json;

// Depth without recursion: the value may be deeper than the stack allows
// when it was parsed without a depth limit.
std::size_t depth_of(const json& root) {
  std::size_t deepest = 0;
  std::vector<std::pair<const json*, std::size_t>> todo{{&root, 0}};
  while (!todo.empty()) {
    auto [value, depth] = todo.back();
    todo.pop_back();
    if (!value->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *value) todo.emplace_back(&child, depth + 1);
  }
  return deepest;
}

template <class T>
void check_integer(const json& object, const std::string& key, const json& value) {
  const auto field = ava::base::json_field<T>(object, key);
  if (!value.is_number_integer()) {
    FUZZ_CHECK(!field);
    return;
  }
  if (value.is_number_unsigned()) {
    const auto n = value.get<std::uint64_t>();
    const bool fits = n <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    FUZZ_CHECK(field.has_value() == fits);
    if (field) FUZZ_CHECK(static_cast<std::uint64_t>(*field) == n);
    return;
  }
  const auto n = value.get<std::int64_t>();
  bool fits = false;
  if constexpr (std::is_unsigned_v<T>) {
    fits = n >= 0 && static_cast<std::uint64_t>(n) <= std::numeric_limits<T>::max();
  } else {
    fits = n >= std::numeric_limits<T>::min() && n <= std::numeric_limits<T>::max();
  }
  FUZZ_CHECK(field.has_value() == fits);
  if (field) FUZZ_CHECK(static_cast<std::int64_t>(*field) == n);
}

void check_fields(const json& object) {
  if (!object.is_object()) {
    FUZZ_CHECK(!ava::base::json_field<json>(object, "a"));
    FUZZ_CHECK(ava::base::json_value(object, "a", "fallback") == "fallback");
    return;
  }
  for (const auto& [key, value] : object.items()) {
    const auto any = ava::base::json_field<json>(object, key);
    FUZZ_CHECK(any && *any == value);
    const auto text = ava::base::json_field<std::string>(object, key);
    FUZZ_CHECK(text.has_value() == value.is_string());
    FUZZ_CHECK(ava::base::json_value(object, key, "\x01") ==
               (value.is_string() ? value.get<std::string>() : "\x01"));
    FUZZ_CHECK(ava::base::json_field<bool>(object, key).has_value() == value.is_boolean());
    const auto number = ava::base::json_field<double>(object, key);
    FUZZ_CHECK(number.has_value() == value.is_number());
    check_integer<int>(object, key, value);
    check_integer<std::uint8_t>(object, key, value);
    check_integer<std::int64_t>(object, key, value);
    check_integer<std::uint64_t>(object, key, value);
    check_integer<std::size_t>(object, key, value);
  }
  FUZZ_CHECK(!ava::base::json_field<json>(object, "\xff not a key"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = ava::fuzz::as_text(data, size);

  // Without a depth limit (the parser is iterative): what the limit is
  // checked against. Only depth_of and the destructor touch this value.
  const ava::base::JsonLimits unlimited{.max_depth = std::numeric_limits<std::size_t>::max()};
  const auto deep = ava::base::parse_json(text, unlimited);
  // Raw NUL is not JSON (inside a string it is written \u0000); nlohmann's
  // lexer takes it for the end of input, so a success with one in the text
  // means bytes after it were never read.
  if (deep) FUZZ_CHECK(text.find('\0') == std::string_view::npos);
  const std::size_t counted = ava::base::json_depth(text, std::numeric_limits<std::size_t>::max());
  // The text's nesting bounds the value's; it is deeper only where a
  // repeated key's later value replaced a deeper earlier one.
  if (deep) FUZZ_CHECK(counted >= depth_of(*deep));

  const auto parsed = ava::base::parse_json(text);
  FUZZ_CHECK(parsed.has_value() ==
             (deep.has_value() && counted <= ava::base::JsonLimits{}.max_depth));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(depth_of(*parsed) <= ava::base::JsonLimits{}.max_depth);
  FUZZ_CHECK(*parsed == *deep);

  // Tighter limits refuse what is deeper or longer, and keep the rest.
  const auto shallow = ava::base::parse_json(text, {.max_depth = 2, .max_bytes = size});
  FUZZ_CHECK(shallow.has_value() == (counted <= 2));
  if (!shallow) FUZZ_CHECK(shallow.error().code == ava::ErrorCode::limit_exceeded);
  const auto shorter = ava::base::parse_json(text, {.max_bytes = size - 1});
  FUZZ_CHECK(!shorter && shorter.error().code == ava::ErrorCode::limit_exceeded);

  const std::string dumped = parsed->dump();
  const auto again = ava::base::parse_json(dumped);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(*again == *parsed);
  FUZZ_CHECK(again->dump() == dumped);

  check_fields(*parsed);
  if (parsed->is_array()) {
    for (const auto& element : *parsed) check_fields(element);
  }
  return 0;
}
