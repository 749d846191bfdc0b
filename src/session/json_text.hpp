#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace ava::session::json_text {

// A validating JSON scanner that reads values where they lie in the text,
// without building a DOM: the fast path of the event decoder. It never
// accepts what nlohmann rejects (RFC 8259 grammar, UTF-8 checked, surrogates
// paired, no double overflow). It may reject some rare valid text it does not
// need to handle itself -- nesting deeper than kMaxDepth, numbers that
// underflow a double, and (in Object) escaped or repeated keys -- and the
// caller then falls back to nlohmann.

inline constexpr int kMaxDepth = 64;

enum class Kind : std::uint8_t { null, boolean, number, string, array, object };

// One value of a validated text, by position; it owns no bytes.
struct Value {
  Kind kind = Kind::null;
  bool escaped = false;   // a string holding escape sequences
  std::string_view text;  // the value's text, a string's quotes included; empty if absent

  bool is_null() const { return kind == Kind::null; }
  bool is_boolean() const { return kind == Kind::boolean; }
  bool is_string() const { return kind == Kind::string; }
  bool is_array() const { return kind == Kind::array; }
  bool is_object() const { return kind == Kind::object; }
  bool truth() const { return text == "true"; }

  // An integer token (no fraction or exponent) as nlohmann stores it: signed
  // if it fits int64; nullopt for anything else.
  std::optional<std::int64_t> int64() const;
  // A non-negative integer token without a sign that fits uint64.
  std::optional<std::uint64_t> uint64() const;
  // A string's content with its escapes decoded.
  std::string string() const;

  // For code shared with the nlohmann path: get<std::string>() as there.
  template <class T>
  T get() const {
    static_assert(std::is_same_v<T, std::string>);
    return string();
  }
};

// Parses the text as exactly one JSON value with optional surrounding
// whitespace, validating all of it. False if it is not valid JSON or nests
// deeper than kMaxDepth.
bool parse_document(std::string_view text, Value& out);

// The elements of a validated array value.
class Array {
 public:
  Array() = default;
  explicit Array(std::string_view text) : text_(text) {}

  class iterator {
   public:
    iterator() = default;
    iterator(const char* at, const char* end);
    const Value& operator*() const { return current_; }
    const Value* operator->() const { return &current_; }
    iterator& operator++();
    bool operator==(const iterator& other) const { return done_ == other.done_; }

   private:
    void read();
    const char* at_ = nullptr;
    const char* end_ = nullptr;
    Value current_;
    bool done_ = true;
  };

  iterator begin() const;
  iterator end() const { return {}; }

 private:
  std::string_view text_;  // "[...]"; empty for no elements
};

struct Member {
  std::string_view key;
  Value value;
};

// The members of a validated object value, found by key.
class Object {
 public:
  static constexpr std::size_t kMaxMembers = 32;

  // Validates `text` as exactly one JSON object (whitespace around allowed)
  // and indexes its members. False, with no members, if the text is not
  // valid JSON or not an object, nests deeper than kMaxDepth, or the object
  // has more than kMaxMembers members, a key with escapes or a repeated key:
  // cases left to nlohmann, which resolves them its own way.
  bool index_document(std::string_view text);
  // The same for an object value inside text validated before.
  bool index(const Value& object);
  std::span<const Member> members() const { return {members_.data(), count_}; }
  // The member's position, or -1.
  int find(std::string_view key) const;

 private:
  // The members after '{' (p just after it), through the closing '}'.
  bool index_members(const char*& p, const char* end, bool validate);

  std::array<Member, kMaxMembers> members_;
  std::size_t count_ = 0;
};

}  // namespace ava::session::json_text
