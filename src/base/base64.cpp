#include "ava/base/base64.hpp"

#include <algorithm>
#include <array>

namespace ava::base {

namespace {

constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<signed char, 256> decoding_table() {
  std::array<signed char, 256> table{};
  table.fill(-1);
  for (std::size_t i = 0; i < alphabet.size(); ++i)
    table[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
  return table;
}

constexpr auto decoding = decoding_table();

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto at = [&](std::size_t index) -> unsigned {
    return static_cast<unsigned char>(bytes[index]);
  };
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned group = (at(i) << 16U) | (at(i + 1) << 8U) | at(i + 2);
    out += alphabet[(group >> 18U) & 63U];
    out += alphabet[(group >> 12U) & 63U];
    out += alphabet[(group >> 6U) & 63U];
    out += alphabet[group & 63U];
  }
  if (i + 1 == bytes.size()) {
    const unsigned group = at(i) << 16U;
    out += alphabet[(group >> 18U) & 63U];
    out += alphabet[(group >> 12U) & 63U];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned group = (at(i) << 16U) | (at(i + 1) << 8U);
    out += alphabet[(group >> 18U) & 63U];
    out += alphabet[(group >> 12U) & 63U];
    out += alphabet[(group >> 6U) & 63U];
    out += '=';
  }
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  std::string out = base64_encode(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  std::ranges::replace(out, '+', '-');
  std::ranges::replace(out, '/', '_');
  return out;
}

std::optional<std::string> base64_decode(std::string_view text, std::size_t limit) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(std::min(base64_decoded_size(text.size()), limit));
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    // Padding only at the very end: "xx==" or "xxx=".
    const std::size_t padding = last && text[i + 3] == '=' ? (text[i + 2] == '=' ? 2 : 1) : 0;
    unsigned group = 0;
    for (std::size_t j = 0; j < 4 - padding; ++j) {
      const int value = decoding[static_cast<unsigned char>(text[i + j])];
      if (value < 0) return std::nullopt;
      group |= static_cast<unsigned>(value) << (18U - 6U * static_cast<unsigned>(j));
    }
    const std::size_t bytes = 3 - padding;
    if (out.size() + bytes > limit) return std::nullopt;
    out += static_cast<char>((group >> 16U) & 0xFFU);
    if (bytes > 1) out += static_cast<char>((group >> 8U) & 0xFFU);
    if (bytes > 2) out += static_cast<char>(group & 0xFFU);
  }
  return out;
}

std::optional<std::string> image_media_type(std::string_view head) {
  if (head.starts_with("\x89PNG\r\n\x1A\n")) return "image/png";
  if (head.starts_with("\xFF\xD8\xFF")) return "image/jpeg";
  if (head.starts_with("GIF87a") || head.starts_with("GIF89a")) return "image/gif";
  if (head.size() >= 12 && head.starts_with("RIFF") && head.substr(8, 4) == "WEBP") {
    return "image/webp";
  }
  return std::nullopt;
}

}  // namespace ava::base
