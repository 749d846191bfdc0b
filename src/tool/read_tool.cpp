#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "ava/base/base64.hpp"
#include "ava/base/unique_fd.hpp"
#include "ava/base/utf8.hpp"
#include "ava/tool/files.hpp"
#include "ava/tool/registry.hpp"
#include "ava/tool/text.hpp"
#include "file_io.hpp"

namespace ava::tool {
namespace {

using nlohmann::json;

constexpr std::size_t default_line_limit = 2000;
constexpr std::size_t max_line_bytes = 2000;
constexpr std::size_t sniff_bytes = std::size_t{8} * 1024;

// Reads lines through one buffer from a descriptor or from text in memory
// (an editor's buffer).
class LineReader {
 public:
  // Fills a buffer and says how many bytes it got; 0 at the end.
  using Fill = std::function<Result<std::size_t>(char* buffer, std::size_t size)>;
  explicit LineReader(Fill fill) : fill_(std::move(fill)) {}

  static LineReader of_fd(int fd) {
    return LineReader([fd](char* buffer, std::size_t size) -> Result<std::size_t> {
      for (;;) {
        const ssize_t count = ::read(fd, buffer, size);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) return base::fail_errno("read", errno);
        return static_cast<std::size_t>(count);
      }
    });
  }
  static LineReader of_text(std::string_view text) {
    return LineReader([text](char* buffer, std::size_t size) mutable -> Result<std::size_t> {
      const auto count = std::min(size, text.size());
      std::memcpy(buffer, text.data(), count);
      text.remove_prefix(count);
      return count;
    });
  }

  // The next line without its newline, keeping at most `keep` bytes of it
  // (one minified megabyte line must not be held whole); `length` is its
  // full length. False at the end of the file.
  Result<bool> next(std::string& line, std::size_t& length, std::size_t keep) {
    line.clear();
    length = 0;
    bool any = false;
    for (;;) {
      const auto newline = buffered().find('\n');
      const auto part = buffered().substr(0, newline);
      line.append(part.substr(0, keep - std::min(keep, line.size())));
      length += part.size();
      any = any || !part.empty();
      if (newline != std::string_view::npos) {
        start_ += newline + 1;
        return true;
      }
      start_ = end_ = 0;
      AVA_TRY(const std::size_t count, fill_(buffer_.data(), buffer_.size()));
      bytes_read_ += count;
      if (count == 0) return any;
      end_ = count;
    }
  }

  std::size_t bytes_read() const { return bytes_read_; }

 private:
  std::string_view buffered() const { return {buffer_.data() + start_, end_ - start_}; }
  Fill fill_;
  std::array<char, std::size_t{64} * 1024> buffer_{};
  std::size_t start_ = 0;
  std::size_t end_ = 0;
  std::size_t bytes_read_ = 0;
};

struct Listing {
  std::string text;
  std::size_t first = 0;    // first line shown (1-based)
  std::size_t last = 0;     // last line shown, 0 when none
  std::size_t total = 0;    // lines counted
  bool total_known = true;  // counting stopped early on a huge file
  bool hit_byte_cap = false;
};

Result<Listing> list_lines(LineReader& reader, std::size_t offset, std::size_t limit,
                           std::size_t byte_cap, std::size_t count_cap) {
  Listing listing{.first = offset};
  std::string line;
  std::size_t length = 0;
  for (;;) {
    AVA_TRY(bool more, reader.next(line, length, max_line_bytes + 1));
    if (!more) break;
    const std::size_t number = ++listing.total;
    const bool wanted = number >= offset && number - offset < limit && !listing.hit_byte_cap;
    if (wanted) {
      if (line.ends_with('\r')) line.pop_back();  // CRLF shows as a plain line
      if (length > max_line_bytes) {
        line = fmt::format("{} [... line truncated, {} bytes ...]", line.substr(0, max_line_bytes),
                           length);
      }
      std::string formatted = fmt::format("{:>6}\t{}\n", number, line);
      if (listing.text.size() + formatted.size() > byte_cap) {
        listing.hit_byte_cap = true;
      } else {
        listing.text += formatted;
        listing.last = number;
      }
    }
    const bool done_showing =
        listing.hit_byte_cap || (number >= offset && number - offset + 1 >= limit);
    if (done_showing && reader.bytes_read() > count_cap) {
      listing.total_known = false;
      break;
    }
  }
  return listing;
}

std::string continuation_note(const Listing& listing, std::size_t byte_cap) {
  const bool more = !listing.total_known || listing.last < listing.total;
  if (!more) return {};
  const std::string of = listing.total_known ? fmt::format("of {}", listing.total)
                                             : fmt::format("of more than {}", listing.total);
  const std::string reason =
      listing.hit_byte_cap ? fmt::format("Output capped at {}: s", text::human_bytes(byte_cap))
                           : std::string("S");
  return fmt::format("\n[{}howing lines {}-{} {}. Use offset={} to continue.]", reason,
                     listing.first, listing.last, of, listing.last + 1);
}

// The read tool's answer from a line reader: numbered lines from the
// arguments' offset.
Result<ToolResult> listing_result(LineReader& reader, const json& arguments,
                                  const std::filesystem::path& path, const base::Limits& limits) {
  const auto& path_text = arguments.at("path").get_ref<const std::string&>();
  const std::size_t offset = arguments.value("offset", std::size_t{1});
  const std::size_t limit = arguments.value("limit", default_line_limit);
  const std::size_t byte_cap = std::min(limits.read_file_bytes, limits.tool_output);
  AVA_TRY(auto listing, list_lines(reader, offset, limit, byte_cap, limits.edit_file_bytes));
  json details{{"path", path.string()}, {"offset", offset}, {"lines", 0}};
  if (listing.total == 0) return ToolResult::text("(empty file)", details);
  if (listing.last == 0 && !listing.hit_byte_cap) {
    return ToolResult::error(fmt::format("offset {} is past the end of {} ({} lines)", offset,
                                         path_text, listing.total));
  }
  if (listing.last == 0) {
    return ToolResult::error(
        fmt::format("Line {} of {} does not fit the output limit.", offset, path_text));
  }
  details["lines"] = listing.last - listing.first + 1;
  details["total_lines"] = listing.total_known ? json(listing.total) : json();
  std::string output = base::utf8::make_valid(listing.text);
  output.pop_back();  // the last newline
  output += continuation_note(listing, byte_cap);
  return ToolResult::text(std::move(output), std::move(details));
}

class ReadTool final : public Tool {
 public:
  const ToolSpec& spec() const override { return spec_; }

  boost::asio::awaitable<Result<ToolResult>> execute(const json& arguments,
                                                     ToolContext& context) override {
    const auto& path_text = arguments.at("path").get_ref<const std::string&>();
    const auto path = file_io::resolve(context, path_text);
    base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      const int error = errno;
      if (error == ENOENT)
        co_return ToolResult::error(fmt::format("File not found: {}", path_text));
      co_return ToolResult::error(
          fmt::format("Cannot read {}: {}", path_text, std::strerror(error)));
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
      co_return ToolResult::error(fmt::format(
          "Cannot read {}: {}", path_text,
          S_ISDIR(info.st_mode) ? "it is a directory (list it with bash)" : "not a regular file"));
    }
    const auto size = static_cast<std::size_t>(info.st_size);

    std::string head(std::min(size, sniff_bytes), '\0');
    const ssize_t got = ::pread(fd.get(), head.data(), head.size(), 0);
    head.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    if (auto media_type = base::image_media_type(head)) {
      co_return read_image(path, path_text, *media_type, size, context.limits.image_bytes);
    }
    if (text::looks_binary(head)) {
      co_return ToolResult::error(
          fmt::format("{} is a binary file ({}); it cannot be shown as text.", path_text,
                      text::human_bytes(size)));
    }

    auto reader = LineReader::of_fd(fd.get());
    co_return listing_result(reader, arguments, path, context.limits);
  }

 private:
  static Result<ToolResult> read_image(const std::filesystem::path& path,
                                       const std::string& path_text, const std::string& media_type,
                                       std::size_t size, std::size_t limit) {
    if (size > limit) {
      return ToolResult::error(fmt::format("{} is an image of {}, over the limit of {}.", path_text,
                                           text::human_bytes(size), text::human_bytes(limit)));
    }
    AVA_TRY(auto bytes, file_io::read_file(path, limit));
    ToolResult result = ToolResult::text(
        fmt::format("Image {} ({}, {})", path_text, media_type, text::human_bytes(bytes.size())),
        {{"path", path.string()}, {"media_type", media_type}, {"bytes", bytes.size()}});
    result.content.emplace_back(ImageContent{media_type, base::base64_encode(bytes)});
    return result;
  }

  ToolSpec spec_{.name = "read",
                 .description =
                     "Read a file. Text comes with line numbers (use offset/limit for long files); "
                     "png, jpeg, gif and webp come as images.",
                 .parameters = json::parse(R"json({
        "type": "object",
        "properties": {
          "path": {"type": "string"},
          "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based"},
          "limit": {"type": "integer", "minimum": 1, "description": "Max lines (default 2000)"}
        },
        "required": ["path"],
        "additionalProperties": false
      })json"),
                 .category = Category::fs,
                 .read_only = true};
};

}  // namespace

std::unique_ptr<Tool> make_read_tool() { return std::make_unique<ReadTool>(); }

Result<ToolResult> read_text(std::string_view text, const json& arguments,
                             const std::filesystem::path& path, const base::Limits& limits) {
  auto reader = LineReader::of_text(text);
  return listing_result(reader, arguments, path, limits);
}

}  // namespace ava::tool
