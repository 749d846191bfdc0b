#include "ava/tool/schema.hpp"

#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"

namespace ava::tool {
namespace {

using nlohmann::json;

struct Issue {
  std::string path;  // "edits[0].oldText", empty for the arguments themselves
  std::string message;
  std::size_t depth = 0;  // how far into the value the issue sits
};

using Check = std::optional<Issue>;

std::string type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "unknown";
  }
}

bool is_type(const json& value, const std::string& type) {
  if (type == "integer") {
    if (value.is_number_integer()) return true;
    if (!value.is_number_float()) return false;
    const double number = value.get<double>();
    return std::isfinite(number) && std::trunc(number) == number;
  }
  if (type == "number") return value.is_number();
  return type_name(value) == type;
}

std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

class Validator {
 public:
  Check check(const json& schema, const json& value, const std::string& path, std::size_t depth) {
    if (!schema.is_object()) return std::nullopt;
    if (auto issue = check_type(schema, value, path, depth)) return issue;
    if (auto issue = check_enum(schema, value, path, depth)) return issue;
    if (value.is_number()) {
      if (auto issue = check_range(schema, value, path, depth)) return issue;
    }
    if (value.is_string()) {
      if (auto issue = check_length(schema, value, path, depth)) return issue;
    }
    if (value.is_object()) {
      if (auto issue = check_object(schema, value, path, depth)) return issue;
    }
    if (value.is_array()) {
      if (auto issue = check_array(schema, value, path, depth)) return issue;
    }
    return check_alternatives(schema, value, path, depth);
  }

 private:
  static Issue issue(const std::string& path, std::string message, std::size_t depth) {
    return Issue{path, std::move(message), depth};
  }

  Check check_type(const json& schema, const json& value, const std::string& path,
                   std::size_t depth) {
    const auto type = schema.find("type");
    if (type == schema.end()) return std::nullopt;
    std::vector<std::string> allowed;
    if (type->is_string()) allowed.push_back(type->get<std::string>());
    if (type->is_array()) {
      for (const auto& entry : *type) {
        if (entry.is_string()) allowed.push_back(entry.get<std::string>());
      }
    }
    for (const auto& name : allowed) {
      if (is_type(value, name)) return std::nullopt;
    }
    return issue(path,
                 fmt::format("expected {}, got {}", fmt::join(allowed, " or "), type_name(value)),
                 depth);
  }

  Check check_enum(const json& schema, const json& value, const std::string& path,
                   std::size_t depth) {
    if (const auto constant = schema.find("const");
        constant != schema.end() && *constant != value) {
      return issue(path, fmt::format("must be {}", constant->dump()), depth);
    }
    const auto options = schema.find("enum");
    if (options == schema.end() || !options->is_array()) return std::nullopt;
    for (const auto& option : *options) {
      if (option == value) return std::nullopt;
    }
    std::vector<std::string> shown;
    for (const auto& option : *options) shown.push_back(option.dump());
    return issue(path, fmt::format("must be one of {}", fmt::join(shown, ", ")), depth);
  }

  Check check_range(const json& schema, const json& value, const std::string& path,
                    std::size_t depth) {
    const double number = value.get<double>();
    if (const auto min = schema.find("minimum");
        min != schema.end() && min->is_number() && number < min->get<double>()) {
      return issue(path, fmt::format("must be at least {}", min->dump()), depth);
    }
    if (const auto max = schema.find("maximum");
        max != schema.end() && max->is_number() && number > max->get<double>()) {
      return issue(path, fmt::format("must be at most {}", max->dump()), depth);
    }
    return std::nullopt;
  }

  Check check_length(const json& schema, const json& value, const std::string& path,
                     std::size_t depth) {
    const std::size_t length = base::utf8::code_points(value.get_ref<const std::string&>());
    if (const auto min = schema.find("minLength");
        min != schema.end() && min->is_number_unsigned() && length < min->get<std::size_t>()) {
      return issue(path, fmt::format("must be at least {} characters long", min->dump()), depth);
    }
    if (const auto max = schema.find("maxLength");
        max != schema.end() && max->is_number_unsigned() && length > max->get<std::size_t>()) {
      return issue(path, fmt::format("must be at most {} characters long", max->dump()), depth);
    }
    return std::nullopt;
  }

  Check check_object(const json& schema, const json& value, const std::string& path,
                     std::size_t depth) {
    if (const auto required = schema.find("required"); required != schema.end()) {
      for (const auto& name : *required) {
        if (name.is_string() && !value.contains(name.get<std::string>())) {
          return issue(join_path(path, name.get<std::string>()), "is required", depth + 1);
        }
      }
    }
    const auto properties = schema.find("properties");
    const auto additional = schema.find("additionalProperties");
    for (const auto& [key, member] : value.items()) {
      const std::string member_path = join_path(path, key);
      if (properties != schema.end() && properties->contains(key)) {
        if (auto found = check(properties->at(key), member, member_path, depth + 1)) return found;
        continue;
      }
      if (additional == schema.end()) continue;
      if (additional->is_boolean() && !additional->get<bool>()) {
        return issue(member_path, "is not an accepted field", depth + 1);
      }
      if (auto found = check(*additional, member, member_path, depth + 1)) return found;
    }
    return std::nullopt;
  }

  Check check_array(const json& schema, const json& value, const std::string& path,
                    std::size_t depth) {
    if (const auto min = schema.find("minItems"); min != schema.end() &&
                                                  min->is_number_unsigned() &&
                                                  value.size() < min->get<std::size_t>()) {
      return issue(path, fmt::format("needs at least {} item(s)", min->dump()), depth);
    }
    if (const auto max = schema.find("maxItems"); max != schema.end() &&
                                                  max->is_number_unsigned() &&
                                                  value.size() > max->get<std::size_t>()) {
      return issue(path, fmt::format("allows at most {} item(s)", max->dump()), depth);
    }
    const auto items = schema.find("items");
    if (items == schema.end()) return std::nullopt;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto found = check(*items, value[i], fmt::format("{}[{}]", path, i), depth + 1)) {
        return found;
      }
    }
    return std::nullopt;
  }

  // anyOf / oneOf. When no branch fits, the issue that got deepest into the
  // value is the most useful one to show: it comes from the branch the
  // caller most likely meant.
  Check check_alternatives(const json& schema, const json& value, const std::string& path,
                           std::size_t depth) {
    for (const char* keyword : {"anyOf", "oneOf"}) {
      const auto branches = schema.find(keyword);
      if (branches == schema.end() || !branches->is_array()) continue;
      std::optional<Issue> best;
      std::size_t matches = 0;
      for (const auto& branch : *branches) {
        auto found = check(branch, value, path, depth);
        if (!found) {
          ++matches;
        } else if (!best || found->depth > best->depth) {
          best = std::move(found);
        }
      }
      if (matches == 0) return best;
      if (std::string_view(keyword) == "oneOf" && matches > 1) {
        return issue(path, "matches more than one accepted form", depth);
      }
    }
    return std::nullopt;
  }
};

}  // namespace

Result<void> validate(const json& schema, const json& value) {
  Validator validator;
  if (auto found = validator.check(schema, value, "", 0)) {
    const std::string where = found->path.empty() ? "arguments" : found->path;
    return fail(ErrorCode::invalid_argument, fmt::format("{}: {}", where, found->message));
  }
  return {};
}

}  // namespace ava::tool
