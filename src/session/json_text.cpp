#include "session/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "ava/base/utf8.hpp"
#include "session/json_scan.hpp"

namespace ava::session::json_text {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

void skip_space(const char*& p, const char* end) {
  while (p < end && is_space(*p)) ++p;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at p (after "\u").
bool read_hex4(const char*& p, const char* end, std::uint32_t& code) {
  if (end - p < 4) return false;
  code = 0;
  for (int k = 0; k < 4; ++k) {
    const int digit = hex_digit(p[k]);
    if (digit < 0) return false;
    code = (code << 4) | static_cast<std::uint32_t>(digit);
  }
  p += 4;
  return true;
}

// The escape after a backslash (p at the character after it). A high
// surrogate must be followed by an escaped low one; a lone low one is an
// error, as in nlohmann.
bool scan_escape(const char*& p, const char* end, std::uint32_t* code_out) {
  if (p >= end) return false;
  const char c = *p++;
  std::uint32_t code = 0;
  switch (c) {
    case '"': code = '"'; break;
    case '\\': code = '\\'; break;
    case '/': code = '/'; break;
    case 'b': code = '\b'; break;
    case 'f': code = '\f'; break;
    case 'n': code = '\n'; break;
    case 'r': code = '\r'; break;
    case 't': code = '\t'; break;
    case 'u': {
      if (!read_hex4(p, end, code)) return false;
      if (code >= 0xD800 && code <= 0xDBFF) {
        std::uint32_t low = 0;
        if (end - p < 2 || p[0] != '\\' || p[1] != 'u') return false;
        p += 2;
        if (!read_hex4(p, end, low) || low < 0xDC00 || low > 0xDFFF) return false;
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
      } else if (code >= 0xDC00 && code <= 0xDFFF) {
        return false;
      }
      break;
    }
    default: return false;
  }
  if (code_out != nullptr) *code_out = code;
  return true;
}

// Scanning runs in one of two modes: `validate` checks everything nlohmann
// checks; `trusted` only finds where values end, for text validated before
// (array elements and nested objects are read again after the event's line
// was validated as a whole).
enum class Mode { validate, trusted };

// A string from its opening quote; p ends after the closing quote.
template <Mode mode>
bool scan_string(const char*& p, const char* end, bool& escaped) {
  ++p;
  if constexpr (mode == Mode::trusted) {
    while (true) {
      while (end - p >= 16) {
        const unsigned plain = json_scan::unquoted_prefix16(p);
        p += plain;
        if (plain < 16) break;
      }
      while (p < end && *p != '"' && *p != '\\') ++p;
      if (p >= end) return false;
      if (*p == '"') {
        ++p;
        return true;
      }
      escaped = true;
      p += 2;  // the backslash and the escaped character; \u's digits are plain
    }
  }
  while (true) {
    while (end - p >= 16) {
      const unsigned plain = json_scan::plain_prefix16(p);
      p += plain;
      if (plain < 16) break;
    }
    if (p >= end) return false;
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') {
      ++p;
      return true;
    }
    if (c == '\\') {
      escaped = true;
      ++p;
      if (!scan_escape(p, end, nullptr)) return false;
    } else if (c < 0x20) {
      return false;  // control characters must be escaped
    } else if (c >= 0x80) {
      const std::size_t length = base::utf8::sequence(std::string_view(p, end - p), 0);
      if (length == 0) return false;
      p += length;
    } else {
      ++p;
    }
  }
}

bool scan_digits(const char*& p, const char* end) {
  if (p >= end || !is_digit(*p)) return false;
  while (p < end && is_digit(*p)) ++p;
  return true;
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
template <Mode mode>
bool scan_number(const char*& p, const char* end) {
  if constexpr (mode == Mode::trusted) {
    while (p < end &&
           (is_digit(*p) || *p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E')) {
      ++p;
    }
    return true;
  }
  const char* start = p;
  if (p < end && *p == '-') ++p;
  if (p >= end) return false;
  if (*p == '0') {
    ++p;
  } else if (!scan_digits(p, end)) {
    return false;
  }
  bool integral = p - start <= 19;  // may not fit 64 bits beyond that
  if (p < end && *p == '.') {
    ++p;
    if (!scan_digits(p, end)) return false;
    integral = false;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    if (!scan_digits(p, end)) return false;
    integral = false;
  }
  if (integral) return true;
  // nlohmann stores such a number as a double and rejects the document if it
  // overflows. from_chars also reports underflow as out of range, which
  // nlohmann accepts: declining such a rare number is safe, accepting an
  // overflow would not be.
  double value = 0;
  const auto [stop, error] = std::from_chars(start, p, value);
  return error == std::errc() && stop == p && std::isfinite(value);
}

bool scan_literal(const char*& p, const char* end, std::string_view word) {
  if (static_cast<std::size_t>(end - p) < word.size() ||
      std::memcmp(p, word.data(), word.size()) != 0) {
    return false;
  }
  p += word.size();
  return true;
}

template <Mode mode>
bool parse_value(const char*& p, const char* end, Value& out, int depth);

// The members or elements after '{' or '[' (p just after it), to after the
// matching bracket. With `members`, each member is also passed to `on_member`.
template <Mode mode, class OnMember>
bool scan_members(const char*& p, const char* end, bool object, int depth, OnMember on_member) {
  const char close = object ? '}' : ']';
  skip_space(p, end);
  if (p < end && *p == close) {
    ++p;
    return true;
  }
  Value item;
  while (true) {
    std::string_view key;
    if (object) {
      skip_space(p, end);
      const char* key_start = p;
      bool escaped = false;
      if (p >= end || *p != '"' || !scan_string<mode>(p, end, escaped)) return false;
      key = std::string_view(key_start, static_cast<std::size_t>(p - key_start));
      skip_space(p, end);
      if (p >= end || *p != ':') return false;
      ++p;
    }
    if (!parse_value<mode>(p, end, item, depth + 1)) return false;
    if (!on_member(key, item)) return false;
    skip_space(p, end);
    if (p >= end) return false;
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p != close) return false;
    ++p;
    return true;
  }
}

template <Mode mode>
bool parse_value(const char*& p, const char* end, Value& out, int depth) {
  skip_space(p, end);
  if (p >= end) return false;
  const char* start = p;
  bool ok = false;
  out.escaped = false;
  const auto ignore = [](std::string_view, const Value&) { return true; };
  switch (*p) {
    case '"':
      out.kind = Kind::string;
      ok = scan_string<mode>(p, end, out.escaped);
      break;
    case '{':
    case '[':
      out.kind = *p == '{' ? Kind::object : Kind::array;
      ++p;
      ok = (mode == Mode::trusted || depth < kMaxDepth) &&
           scan_members<mode>(p, end, out.kind == Kind::object, depth, ignore);
      break;
    case 't':
      out.kind = Kind::boolean;
      ok = scan_literal(p, end, "true");
      break;
    case 'f':
      out.kind = Kind::boolean;
      ok = scan_literal(p, end, "false");
      break;
    case 'n':
      out.kind = Kind::null;
      ok = scan_literal(p, end, "null");
      break;
    default: out.kind = Kind::number; ok = scan_number<mode>(p, end);
  }
  out.text = std::string_view(start, static_cast<std::size_t>(p - start));
  return ok;
}

// The magnitude of an integer token, without its sign; nullopt if the token
// has a fraction or exponent or the magnitude exceeds uint64.
std::optional<std::uint64_t> magnitude(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : digits) {
    if (!is_digit(c)) return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

bool parse_document(std::string_view text, Value& out) {
  const char* p = text.data();
  const char* end = p + text.size();
  if (!parse_value<Mode::validate>(p, end, out, 0)) return false;
  skip_space(p, end);
  return p == end;
}

std::optional<std::int64_t> Value::int64() const {
  if (kind != Kind::number) return std::nullopt;
  const bool negative = text.front() == '-';
  const auto value = magnitude(negative ? text.substr(1) : text);
  if (!value) return std::nullopt;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!negative) {
    if (*value > kMax) return std::nullopt;
    return static_cast<std::int64_t>(*value);
  }
  if (*value > kMax + 1) return std::nullopt;
  return *value == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                            : -static_cast<std::int64_t>(*value);
}

std::optional<std::uint64_t> Value::uint64() const {
  if (kind != Kind::number || text.front() == '-') return std::nullopt;
  return magnitude(text);
}

std::string Value::string() const {
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (!escaped) return std::string(inner);
  std::string out;
  out.reserve(inner.size());
  const char* p = inner.data();
  const char* end = p + inner.size();
  while (p < end) {
    const void* found = std::memchr(p, '\\', static_cast<std::size_t>(end - p));
    const char* backslash = found != nullptr ? static_cast<const char*>(found) : end;
    out.append(p, backslash);
    p = backslash;
    if (p == end) break;
    ++p;
    std::uint32_t code = 0;
    if (!scan_escape(p, end, &code)) break;  // cannot happen: the text was validated
    base::utf8::append_code_point(code, out);
  }
  return out;
}

Array::iterator::iterator(const char* at, const char* end) : at_(at), end_(end), done_(false) {
  skip_space(at_, end_);
  if (at_ < end_ && *at_ == ']') {
    done_ = true;
    return;
  }
  read();
}

void Array::iterator::read() {
  if (!parse_value<Mode::trusted>(at_, end_, current_, 0)) done_ = true;  // validated before
}

Array::iterator& Array::iterator::operator++() {
  skip_space(at_, end_);
  if (at_ < end_ && *at_ == ',') {
    ++at_;
    read();
  } else {
    done_ = true;
  }
  return *this;
}

Array::iterator Array::begin() const {
  if (text_.size() < 2) return {};
  return {text_.data() + 1, text_.data() + text_.size()};
}

bool Object::index_members(const char*& p, const char* end, bool validate) {
  count_ = 0;
  const auto add = [this](std::string_view quoted, const Value& value) {
    // Keys with escapes, repeated keys and very wide objects are left to nlohmann.
    const std::string_view key = quoted.substr(1, quoted.size() - 2);
    if (key.find('\\') != std::string_view::npos || count_ == kMaxMembers || find(key) >= 0) {
      return false;
    }
    members_[count_++] = Member{.key = key, .value = value};
    return true;
  };
  const bool ok = validate ? scan_members<Mode::validate>(p, end, true, 0, add)
                           : scan_members<Mode::trusted>(p, end, true, 0, add);
  if (!ok) count_ = 0;
  return ok;
}

bool Object::index(const Value& object) {
  count_ = 0;
  if (!object.is_object()) return false;
  const char* p = object.text.data() + 1;
  return index_members(p, object.text.data() + object.text.size(), false);
}

bool Object::index_document(std::string_view text) {
  count_ = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  skip_space(p, end);
  if (p >= end || *p != '{') return false;
  ++p;
  if (!index_members(p, end, true)) return false;
  skip_space(p, end);
  if (p == end) return true;
  count_ = 0;
  return false;
}

int Object::find(std::string_view key) const {
  for (std::size_t i = 0; i < count_; ++i) {
    if (members_[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace ava::session::json_text
