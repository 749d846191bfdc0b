#include "session/json_writer.hpp"

#include <array>
#include <cstdint>

#include <fmt/format.h>

namespace ava::session {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at text[i], or 0 if it is invalid.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  std::uint32_t code = lead & (0xFF >> (length + 1));
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// How many bytes one U+FFFD replaces at an invalid position: the maximal
// prefix of a well-formed sequence (Unicode's "maximal subpart"), as nlohmann
// and most decoders do.
std::size_t invalid_subpart(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  std::size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  std::size_t taken = 1;
  while (taken < length && i + taken < text.size()) {
    const auto next = static_cast<unsigned char>(text[i + taken]);
    if (next < low || next > high) break;
    low = 0x80;
    high = 0xBF;
    ++taken;
  }
  return taken;
}

void write_string(std::string_view text, std::string& out) {
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of bytes copied verbatim
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const std::size_t length = utf8_sequence(text, i); length > 0) {
        i += length;
        continue;
      }
    }
    out.append(text.substr(run, i - run));
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += kReplacement;  // invalid UTF-8
          i += invalid_subpart(text, i) - 1;
        }
    }
    ++i;
    run = i;
  }
  out.append(text.substr(run));
  out.push_back('"');
}

}  // namespace

void write_json(const nlohmann::json& value, std::string& out) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out.push_back(',');
        first = false;
        write_string(key, out);
        out.push_back(':');
        write_json(item, out);
      }
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value) {
        if (!first) out.push_back(',');
        first = false;
        write_json(item, out);
      }
      out.push_back(']');
      return;
    }
    case nlohmann::json::value_t::string:
      write_string(value.get_ref<const std::string&>(), out);
      return;
    default:
      // Numbers, booleans and null: nlohmann's own formatting.
      out += value.dump();
      return;
  }
}

}  // namespace ava::session
