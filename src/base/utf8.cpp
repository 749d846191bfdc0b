#include "ava/base/utf8.hpp"

namespace ava::base::utf8 {

std::size_t floor_boundary(std::string_view text, std::size_t size) {
  if (size >= text.size()) return text.size();
  while (size > 0 && (static_cast<unsigned char>(text[size]) & 0xC0) == 0x80) --size;
  return size;
}

std::string_view truncate(std::string_view text, std::size_t max_bytes) {
  return text.substr(0, floor_boundary(text, max_bytes));
}

std::string make_valid(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {
      out.push_back(bytes[i++]);
    } else if (const std::size_t length = sequence(bytes, i); length > 0) {
      out.append(bytes.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      i += invalid_subpart(bytes, i);
    }
  }
  return out;
}

std::size_t code_points(std::string_view text) {
  std::size_t count = 0;
  for (const char byte : text) count += (static_cast<unsigned char>(byte) & 0xC0) != 0x80 ? 1 : 0;
  return count;
}

}  // namespace ava::base::utf8
