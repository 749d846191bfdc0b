#pragma once

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

namespace ava::tool {

// Checks a value against the subset of JSON Schema the tools use: type (also
// a list of types; integer, number, string, boolean, object, array, null),
// required, properties, additionalProperties, enum, const, items,
// minItems/maxItems, minimum/maximum, minLength/maxLength, anyOf, oneOf.
// Unknown keywords (description, default, ...) are ignored.
// On failure the invalid_argument message names the field and the rule:
//   "edits[0].oldText: expected string, got number".
Result<void> validate(const nlohmann::json& schema, const nlohmann::json& value);

}  // namespace ava::tool
