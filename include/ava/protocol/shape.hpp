#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/protocol/typescript.hpp"

// One table per API shape. A wire struct gets a specialization
//
//   template <> struct Shape<Project> {
//     static constexpr std::string_view name = "Project", doc = "...";
//     static constexpr auto fields = std::tuple{field("id", &Project::id), ...};
//   };
//
// and from that one table come its encoder (to_json), its decoder
// (from_json, with the same messages for every shape: "x must be a string")
// and its TypeScript interface (object_shape, which ava-protocol-ts writes
// into the web UI's protocol.gen.ts). A shape may add
//   static Result<void> check(const T&);    rules beyond types, after decoding
//   static constexpr std::string_view what;  how errors name a whole value
//   using extends = Base; static constexpr auto base = &T::member;
//                                            the fields of an embedded Base first
// An enum gets EnumShape<E> with its wire strings.
namespace ava::protocol {

template <class T>
struct Shape;
template <class E>
struct EnumShape;

template <class T>
concept Shaped = requires {
  Shape<T>::fields;
};
template <class E>
concept ShapedEnum = std::is_enum_v<E> && requires {
  EnumShape<E>::values;
};

// Whether the TypeScript field is optional: `deduced` from the member
// (std::optional is), `omittable` for a request field with a default that a
// client may leave out, `required` for an optional member the client must
// still send (as null, say).
enum class Presence { deduced, omittable, required };

// One member on the wire. `type` overrides the TypeScript type the C++ type
// gives (a string that holds a DriverState, a union of literals).
template <class Owner, class Member>
struct Field {
  std::string_view name;
  Member Owner::*member;
  std::string_view type;
  Presence presence = Presence::deduced;
};

template <class Owner, class Member>
constexpr Field<Owner, Member> field(std::string_view name, Member Owner::*member,
                                     std::string_view type = {}) {
  return {name, member, type, Presence::deduced};
}
// A request field with a default: absent leaves the member as it is.
template <class Owner, class Member>
constexpr Field<Owner, Member> omittable(std::string_view name, Member Owner::*member,
                                         std::string_view type = {}) {
  return {name, member, type, Presence::omittable};
}
// An optional member the TypeScript type still requires ("boolean | null").
template <class Owner, class Member>
constexpr Field<Owner, Member> required(std::string_view name, Member Owner::*member,
                                        std::string_view type = {}) {
  return {name, member, type, Presence::required};
}

namespace shape_detail {

template <class T>
struct optional_of {
  using type = void;
};
template <class T>
struct optional_of<std::optional<T>> {
  using type = T;
};
template <class T>
constexpr bool is_optional = !std::is_void_v<typename optional_of<T>::type>;

template <class T>
struct vector_of {
  using type = void;
};
template <class T>
struct vector_of<std::vector<T>> {
  using type = T;
};
template <class T>
constexpr bool is_vector = !std::is_void_v<typename vector_of<T>::type>;

template <class T>
struct map_of {
  using type = void;
};
template <class T>
struct map_of<std::map<std::string, T, std::less<>>> {
  using type = T;
};
template <class T>
struct map_of<std::map<std::string, T>> {
  using type = T;
};
template <class T>
constexpr bool is_map = !std::is_void_v<typename map_of<T>::type>;

template <class T>
constexpr bool is_integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// "a", "b" or "c": how messages list an enum's wire strings.
template <ShapedEnum E>
std::string enum_choices() {
  std::string out;
  const auto& values = EnumShape<E>::values;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += "\"" + std::string(values[i].second) + "\"";
  }
  return out;
}

template <class T>
std::string what_of(std::string_view fallback) {
  if constexpr (requires { Shape<T>::what; }) {
    return std::string(Shape<T>::what);
  } else {
    return std::string(fallback);
  }
}

}  // namespace shape_detail

template <ShapedEnum E>
std::string_view wire_name(E value) {
  for (const auto& [item, name] : EnumShape<E>::values) {
    if (item == value) return name;
  }
  return EnumShape<E>::values.front().second;
}

// ---- encoding ----

template <Shaped T>
nlohmann::json to_json(const T& value);

template <class T>
nlohmann::json encode_value(const T& value) {
  using namespace shape_detail;
  if constexpr (Shaped<T>) {
    return to_json(value);
  } else if constexpr (ShapedEnum<T>) {
    return std::string(wire_name(value));
  } else if constexpr (is_vector<T>) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(encode_value(item));
    return out;
  } else if constexpr (is_map<T>) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, item] : value) out[key] = encode_value(item);
    return out;
  } else {
    return value;  // strings, numbers, booleans, nlohmann::json
  }
}

template <Shaped T>
nlohmann::json to_json(const T& value) {
  nlohmann::json out = nlohmann::json::object();
  if constexpr (requires { Shape<T>::base; }) out = to_json(value.*Shape<T>::base);
  std::apply(
      [&](const auto&... fields) {
        const auto write = [&](const auto& f) {
          const auto& member = value.*f.member;
          if constexpr (shape_detail::is_optional<std::remove_cvref_t<decltype(member)>>) {
            if (member) out[std::string(f.name)] = encode_value(*member);
          } else {
            out[std::string(f.name)] = encode_value(member);
          }
        };
        (write(fields), ...);
      },
      Shape<T>::fields);
  return out;
}

// ---- decoding: strict about types, lenient about unknown fields (an older
// server accepts a newer client's extras); absent or null leaves a member as
// it is ----

template <Shaped T>
Result<T> from_json(const nlohmann::json& value, std::string_view what = "the body");

template <class T>
Result<void> decode_value(const nlohmann::json& value, std::string_view name, T& out) {
  using namespace shape_detail;
  const std::string key(name);
  if constexpr (Shaped<T>) {
    AVA_TRY(out, from_json<T>(value, what_of<T>(name)));
  } else if constexpr (ShapedEnum<T>) {
    if (value.is_string()) {
      for (const auto& [item, wire] : EnumShape<T>::values) {
        if (value.get_ref<const std::string&>() == wire) {
          out = item;
          return {};
        }
      }
    }
    return fail(ErrorCode::invalid_argument, key + " must be " + enum_choices<T>());
  } else if constexpr (is_optional<T>) {
    typename optional_of<T>::type inner{};
    AVA_TRY_VOID(decode_value(value, name, inner));
    out = std::move(inner);
  } else if constexpr (is_vector<T>) {
    if (!value.is_array()) return fail(ErrorCode::invalid_argument, key + " must be an array");
    out.clear();
    for (const auto& item : value) {
      typename vector_of<T>::type element{};
      AVA_TRY_VOID(decode_value(item, name, element));
      out.push_back(std::move(element));
    }
  } else if constexpr (is_map<T>) {
    if (!value.is_object()) {
      return fail(ErrorCode::invalid_argument, key + " must be a JSON object");
    }
    out.clear();
    for (const auto& [item_key, item] : value.items()) {
      typename map_of<T>::type element{};
      AVA_TRY_VOID(decode_value(item, name, element));
      out.emplace(item_key, std::move(element));
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) return fail(ErrorCode::invalid_argument, key + " must be a string");
    out = value.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) {
      return fail(ErrorCode::invalid_argument, key + " must be true or false");
    }
    out = value.get<bool>();
  } else if constexpr (is_integer<T>) {
    if (!value.is_number_integer()) {
      return fail(ErrorCode::invalid_argument, key + " must be an integer");
    }
    out = value.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) return fail(ErrorCode::invalid_argument, key + " must be a number");
    out = value.get<T>();
  } else {
    static_assert(std::is_same_v<T, nlohmann::json>, "no wire form for this member type");
    out = value;
  }
  return {};
}

template <Shaped T>
Result<T> from_json(const nlohmann::json& value, std::string_view what) {
  if (!value.is_object()) {
    return fail(ErrorCode::invalid_argument, std::string(what) + " must be a JSON object");
  }
  T out{};
  if constexpr (requires { Shape<T>::base; }) {
    using Base = typename Shape<T>::extends;
    AVA_TRY(out.*Shape<T>::base, from_json<Base>(value, what));
  }
  Result<void> status;
  const auto read = [&](const auto& f) {
    if (!status) return;
    auto it = value.find(f.name);
    if (it == value.end() || it->is_null()) return;
    status = decode_value(*it, f.name, out.*f.member);
  };
  std::apply([&](const auto&... fields) { (read(fields), ...); }, Shape<T>::fields);
  if (!status) return std::unexpected(std::move(status).error());
  if constexpr (requires { Shape<T>::check(out); }) AVA_TRY_VOID(Shape<T>::check(out));
  return out;
}

// ---- TypeScript ----

template <class T>
std::string typescript_type() {
  using namespace shape_detail;
  if constexpr (Shaped<T>) {
    return std::string(Shape<T>::name);
  } else if constexpr (ShapedEnum<T>) {
    return std::string(EnumShape<T>::name);
  } else if constexpr (is_optional<T>) {
    return typescript_type<typename optional_of<T>::type>();
  } else if constexpr (is_vector<T>) {
    return typescript_type<typename vector_of<T>::type>() + "[]";
  } else if constexpr (is_map<T>) {
    return "Record<string, " + typescript_type<typename map_of<T>::type>() + ">";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string";
  } else if constexpr (std::is_same_v<T, bool>) {
    return "boolean";
  } else if constexpr (std::is_arithmetic_v<T>) {
    return "number";
  } else {
    return "unknown";
  }
}

template <Shaped T>
ObjectShape object_shape() {
  ObjectShape out{std::string(Shape<T>::name), std::string(Shape<T>::doc), {}, {}};
  if constexpr (requires { Shape<T>::base; }) {
    out.extends = std::string(Shape<typename Shape<T>::extends>::name);
  }
  const auto add = [&](const auto& f) {
    using Member = std::remove_cvref_t<decltype(std::declval<T>().*f.member)>;
    out.fields.push_back(FieldShape{
        std::string(f.name), f.type.empty() ? typescript_type<Member>() : std::string(f.type),
        f.presence == Presence::omittable ||
            (f.presence == Presence::deduced && shape_detail::is_optional<Member>)});
  };
  std::apply([&](const auto&... fields) { (add(fields), ...); }, Shape<T>::fields);
  return out;
}

template <ShapedEnum E>
AliasShape alias_shape() {
  std::string type;
  for (const auto& [item, wire] : EnumShape<E>::values) {
    if (!type.empty()) type += " | ";
    type += "\"" + std::string(wire) + "\"";
  }
  return {std::string(EnumShape<E>::name), std::string(EnumShape<E>::doc), type};
}

}  // namespace ava::protocol
