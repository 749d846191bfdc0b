#include "prompts/text.hpp"

#include <fstream>
#include <system_error>

namespace ava::prompts {

std::optional<std::string> read_head(const std::filesystem::path& file, std::size_t limit,
                                     std::size_t& size) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  size = static_cast<std::size_t>(std::filesystem::file_size(file, ec));
  if (ec) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  // A few bytes more than the limit, to cut on a character boundary.
  std::string text(std::min(limit + 4, size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return utf8_prefix(text, limit);
}

std::string utf8_prefix(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

}  // namespace ava::prompts
