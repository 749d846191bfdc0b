#include "ava/tool/text.hpp"

#include <array>

#include <fmt/format.h>

#include "ava/base/utf8.hpp"

namespace ava::tool::text {

bool looks_binary(std::string_view sample) {
  if (sample.find('\0') != std::string_view::npos) return true;
  std::size_t invalid = 0;
  std::size_t position = 0;
  while (position < sample.size()) {
    const std::size_t length = static_cast<unsigned char>(sample[position]) < 0x80
                                   ? 1
                                   : base::utf8::sequence(sample, position);
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
