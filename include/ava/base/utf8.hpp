#pragma once

// UTF-8 once for every package: the session log's JSON writer, tool output,
// titles and truncation all cut and validate text with these.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ava::base::utf8 {

// Length of the well-formed UTF-8 sequence at text[i] (whose lead byte is at
// least 0x80), or 0 if it is ill-formed: overlong forms, surrogates and code
// points above U+10FFFF are rejected, as JSON parsers (nlohmann included) do.
inline std::size_t sequence(std::string_view text, std::size_t i) {
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

// Whether every byte of `text` belongs to a well-formed sequence.
inline bool valid(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = sequence(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

// How many bytes one U+FFFD replaces at an invalid position: the maximal
// prefix of a well-formed sequence (Unicode's "maximal subpart"), as nlohmann
// and most decoders do.
inline std::size_t invalid_subpart(std::string_view text, std::size_t i) {
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

// Appends code point `code` (at most U+10FFFF) encoded as UTF-8.
template <class String>
void append_code_point(std::uint32_t code, String& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// The largest character boundary at or below `size` (text.size() when size
// is past the end): a cut there never splits a character.
std::size_t floor_boundary(std::string_view text, std::size_t size);

// `text` cut to at most `max_bytes` at a character boundary.
std::string_view truncate(std::string_view text, std::size_t max_bytes);

// Every ill-formed sequence replaced with one U+FFFD per maximal subpart (the
// same rule as the session log's writer), so arbitrary bytes -- process
// output, files -- can always be encoded as JSON.
std::string make_valid(std::string_view bytes);

// Code points in well-formed text (continuation bytes are not counted).
std::size_t code_points(std::string_view text);

}  // namespace ava::base::utf8
