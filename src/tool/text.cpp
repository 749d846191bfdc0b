#include "ava/tool/text.hpp"

#include <array>

#include <fmt/format.h>

namespace ava::tool::text {
namespace {

// Length of the valid UTF-8 sequence at the start of bytes, 0 if invalid.
// A sequence cut off by the end of bytes counts as invalid.
std::size_t sequence_length(std::string_view bytes) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (bytes.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

std::string valid_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    const std::size_t length = sequence_length(bytes);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      bytes.remove_prefix(1);
    } else {
      out.append(bytes.substr(0, length));
      bytes.remove_prefix(length);
    }
  }
  return out;
}

bool looks_binary(std::string_view sample) {
  if (sample.find('\0') != std::string_view::npos) return true;
  std::size_t invalid = 0;
  std::size_t position = 0;
  while (position < sample.size()) {
    const std::size_t length = sequence_length(sample.substr(position));
    if (length == 0) {
      // A sequence cut by the end of the sample is not evidence of anything.
      if (sample.size() - position < 4) break;
      ++invalid;
      ++position;
    } else {
      position += length;
    }
  }
  // Latin-1 text has some invalid bytes (one per accented letter); binary
  // data without NULs is rare and mostly invalid.
  return invalid * 10 > sample.size() * 3;
}

std::string human_bytes(std::size_t bytes) {
  constexpr std::array<const char*, 4> units{"bytes", "KiB", "MiB", "GiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < units.size()) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} bytes", bytes);
  return fmt::format("{:.1f} {}", value, units[unit]);
}

}  // namespace ava::tool::text
