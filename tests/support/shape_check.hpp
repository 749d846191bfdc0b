#pragma once

#include <cctype>
#include <string>

#include <nlohmann/json.hpp>

#include "ava/protocol/typescript.hpp"

namespace ava::test {

// Empty when `value` fits the TypeScript type `type` as the generated module
// declares it, else why not. Object types are checked field by field.
std::string shape_mismatch(const nlohmann::json& value, const std::string& type,
                           const std::string& where);

inline std::string object_mismatch(const nlohmann::json& value, const std::string& shape_name,
                                   const std::string& where) {
  const auto* shape = protocol::find_object(shape_name);
  if (shape == nullptr) return where + ": no shape " + shape_name;
  if (!value.is_object()) return where + ": not an object";
  const auto fields = protocol::all_fields(*shape);
  for (const auto& [key, item] : value.items()) {
    bool known = false;
    for (const auto& field : fields) {
      if (field.name != key) continue;
      known = true;
      if (auto problem = shape_mismatch(item, field.type, where + "." + key); !problem.empty())
        return problem;
    }
    if (!known) return where + ": field " + key + " is not in shape " + shape_name;
  }
  for (const auto& field : fields) {
    if (!field.optional && !value.contains(field.name)) return where + ": missing " + field.name;
  }
  return "";
}

inline std::string shape_mismatch(const nlohmann::json& value, const std::string& type,
                                  const std::string& where) {
  if (type.size() > 2 && type.ends_with("[]") && type.find('|') == std::string::npos) {
    if (!value.is_array()) return where + ": not an array";
    std::string element = type.substr(0, type.size() - 2);
    if (element.front() == '(') return "";  // inline element types: arrays only
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto problem = shape_mismatch(value[i], element, where + "[" + std::to_string(i) + "]");
          !problem.empty()) {
        return problem;
      }
    }
    return "";
  }
  if (type == "string") return value.is_string() ? "" : where + ": not a string";
  if (type == "number") return value.is_number() ? "" : where + ": not a number";
  if (type == "boolean") return value.is_boolean() ? "" : where + ": not a boolean";
  if (type.front() == '"') {  // a union of string literals
    if (!value.is_string()) return where + ": not a string";
    return type.find("\"" + value.get<std::string>() + "\"") != std::string::npos
               ? ""
               : where + ": " + value.get<std::string>() + " is not one of " + type;
  }
  if (type.front() == '{' || type.rfind("Record<", 0) == 0)
    return value.is_object() ? "" : where + ": not an object";
  if (std::isupper(static_cast<unsigned char>(type.front())) != 0) {
    for (const auto& alias : protocol::api_aliases()) {
      if (alias.name == type) return shape_mismatch(value, alias.type, where);
    }
    return object_mismatch(value, type, where);
  }
  return where + ": cannot check type " + type;
}

}  // namespace ava::test
