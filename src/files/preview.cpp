#include "ava/files/preview.hpp"

#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <utility>

#include "ava/base/utf8.hpp"

namespace ava::files {
namespace {

struct Opened {
  base::UniqueFd fd;
  struct stat info {};
};

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
Result<Opened> open_regular(const ProjectRoot& root, const std::string& relative) {
  AVA_TRY(auto fd, root.open_beneath(relative, O_RDONLY | O_NONBLOCK));
  Opened opened{.fd = std::move(fd)};
  if (::fstat(opened.fd.get(), &opened.info) != 0)
    return base::fail_errno("stat " + relative, errno);
  if (S_ISDIR(opened.info.st_mode)) {
    return fail(ErrorCode::invalid_argument, relative + " is a folder: list it instead");
  }
  if (!S_ISREG(opened.info.st_mode)) {
    return fail(ErrorCode::invalid_argument, relative + " is not a regular file");
  }
  return opened;
}

// Up to `limit` bytes from the start (the file may have grown since fstat).
Result<std::string> read_head(int fd, std::size_t limit) {
  std::string bytes;
  std::array<char, std::size_t{64} * 1024> buffer{};
  while (bytes.size() < limit) {
    const auto want = std::min(buffer.size(), limit - bytes.size());
    const ssize_t got = ::read(fd, buffer.data(), want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return base::fail_errno("read", errno);
    if (got == 0) break;
    bytes.append(buffer.data(), static_cast<std::size_t>(got));
  }
  return bytes;
}

std::string hex(const unsigned char* data, std::size_t size) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

std::string content_version(std::string_view bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
  return "sha256-" + hex(digest.data(), digest.size());
}

std::string stat_version(const struct stat& info) {
  return "stat-" + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec) + "-" + std::to_string(info.st_size) + "-" +
         std::to_string(info.st_ino);
}

std::string_view extension(std::string_view path) {
  const auto slash = path.rfind('/');
  const auto name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  return name.substr(dot + 1);
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Images by their extension (an <img> only ever decodes them: no script of
// an SVG runs there); PDFs by extension or signature.
std::pair<std::string, std::string> kind_by_name(std::string_view path, std::string_view head) {
  const auto ext = lower(extension(path));
  static constexpr std::pair<std::string_view, std::string_view> images[] = {
      {"png", "image/png"},    {"jpg", "image/jpeg"},  {"jpeg", "image/jpeg"},
      {"gif", "image/gif"},    {"webp", "image/webp"}, {"bmp", "image/bmp"},
      {"ico", "image/x-icon"}, {"avif", "image/avif"}, {"svg", "image/svg+xml"}};
  for (const auto& [name, type] : images) {
    if (ext == name) return {"image", std::string(type)};
  }
  if (ext == "pdf" || head.starts_with("%PDF-")) return {"pdf", "application/pdf"};
  return {};
}

// `text` without a character cut short at its end (a head read stops at a
// byte count, not at a character).
std::string_view whole_characters(std::string_view text) {
  for (std::size_t back = 1; back <= 4 && back <= text.size(); ++back) {
    const auto byte = static_cast<unsigned char>(text[text.size() - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return length > back ? text.substr(0, text.size() - back) : text;
  }
  return text;
}

bool looks_like_text(std::string_view head, bool cut) {
  if (head.find('\0') != std::string_view::npos) return false;
  return base::utf8::valid(cut ? whole_characters(head) : head);
}

}  // namespace

Result<protocol::FilePreview> preview(const ProjectRoot& root, const std::string& relative,
                                      std::size_t max_text) {
  AVA_TRY(auto opened, open_regular(root, relative));
  const auto size = static_cast<std::size_t>(opened.info.st_size);
  const bool hashed = size <= max_hashed_bytes;
  // Hashed files are read whole (the version needs every byte); others only
  // as far as a preview shows.
  AVA_TRY(auto bytes, read_head(opened.fd.get(), hashed ? max_hashed_bytes + 1 : max_text));
  protocol::FilePreview preview{
      .path = relative,
      .size = static_cast<std::int64_t>(opened.info.st_size),
      .mtime_ms = static_cast<std::int64_t>(opened.info.st_mtim.tv_sec) * 1000 +
                  opened.info.st_mtim.tv_nsec / 1000000,
      .version = hashed && bytes.size() <= max_hashed_bytes ? content_version(bytes)
                                                            : stat_version(opened.info)};
  auto [kind, media_type] = kind_by_name(relative, bytes);
  const bool cut = bytes.size() > max_text;
  const std::string_view head = std::string_view(bytes).substr(0, std::min(bytes.size(), max_text));
  if (kind.empty() && looks_like_text(head, cut || size > bytes.size())) {
    kind = "text";
    media_type = "text/plain; charset=utf-8";
    preview.text = std::string(whole_characters(head));
    preview.truncated = cut || size > bytes.size();
  }
  if (kind.empty()) {
    kind = "binary";
    media_type = "application/octet-stream";
  }
  preview.kind = std::move(kind);
  preview.media_type = std::move(media_type);
  return preview;
}

Result<RawFile> read_raw(const ProjectRoot& root, const std::string& relative,
                         std::size_t max_bytes) {
  AVA_TRY(auto opened, open_regular(root, relative));
  if (static_cast<std::size_t>(opened.info.st_size) > max_bytes) {
    return fail(ErrorCode::limit_exceeded, relative + " is larger than " +
                                               std::to_string(max_bytes / base::MiB) +
                                               " MiB: open it on its machine instead");
  }
  AVA_TRY(auto bytes, read_head(opened.fd.get(), max_bytes + 1));
  if (bytes.size() > max_bytes) {
    return fail(ErrorCode::limit_exceeded, relative + " grew past the download limit");
  }
  RawFile raw;
  raw.version = static_cast<std::size_t>(opened.info.st_size) <= max_hashed_bytes &&
                        bytes.size() <= max_hashed_bytes
                    ? content_version(bytes)
                    : stat_version(opened.info);
  auto [kind, media_type] = kind_by_name(relative, bytes);
  raw.kind = kind.empty() ? "binary" : kind;
  raw.media_type = media_type.empty() ? "application/octet-stream" : media_type;
  raw.bytes = std::move(bytes);
  return raw;
}

}  // namespace ava::files
