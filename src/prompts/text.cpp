#include "prompts/text.hpp"

#include <fstream>
#include <system_error>

#include "ava/base/utf8.hpp"

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
  return std::string(base::utf8::truncate(text, limit));
}

}  // namespace ava::prompts
