#include "ava/httpd/static_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "ava/base/private_file.hpp"
#include "ava/base/text.hpp"

namespace ava::httpd {
namespace {

namespace asio = boost::asio;
constexpr std::size_t static_file_limit = std::size_t{64} * 1024 * 1024;

std::filesystem::path executable_dir() {
  std::array<char, 4096> buffer{};
  const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  if (n <= 0) return {};
  return std::filesystem::path(std::string(buffer.data(), static_cast<std::size_t>(n)))
      .parent_path();
}

constexpr std::string_view placeholder_page = R"(<!doctype html>
<html><head><meta charset="utf-8"><title>Ava</title></head>
<body><h1>Ava</h1><p>The web UI is not built. The API is at <code>/api/</code> (see docs/api.md);
try <a href="/api/health">/api/health</a>.</p></body></html>
)";

}  // namespace

std::optional<std::filesystem::path> find_web_root() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("AVA_WEB_ROOT"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  }
  if (auto dir = executable_dir(); !dir.empty()) {
    candidates.push_back(dir / ".." / "share" / "ava" / "web");  // installed
    candidates.push_back(dir / ".." / ".." / "web" / "dist");  // a build tree: <build>/src/app/ava
  }
  std::error_code ec;
  for (const auto& candidate : candidates) {
    if (std::filesystem::is_regular_file(candidate / "index.html", ec)) {
      return std::filesystem::canonical(candidate, ec);
    }
  }
  return std::nullopt;
}

std::optional<std::string> static_content_type(const std::filesystem::path& file) {
  const std::string ext = base::ascii_lower(file.extension().string());
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json" || ext == ".map" || ext == ".webmanifest") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".woff2") return "font/woff2";
  if (ext == ".wasm") return "application/wasm";
  if (ext == ".txt") return "text/plain; charset=utf-8";
  return std::nullopt;
}

Result<std::filesystem::path> resolve_static_file(const std::filesystem::path& root,
                                                  const std::vector<std::string>& segments) {
  auto missing = [] { return fail(ErrorCode::not_found, "no such file"); };
  std::filesystem::path relative;
  for (const auto& segment : segments) {
    // Plain names only: no "", ".", ".." or hidden files, nothing a
    // filesystem or another OS would read as a separator or an end.
    if (segment.empty() || segment.front() == '.' ||
        segment.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
      return missing();
    }
    relative /= segment;
  }
  if (relative.empty()) relative = "index.html";
  // The real path decides, not the spelling: a symlink inside the bundle
  // that points elsewhere is outside the root.
  auto inside =
      [&root](const std::filesystem::path& candidate) -> std::optional<std::filesystem::path> {
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(candidate, ec);
    if (ec) return std::nullopt;
    auto [root_end, real_end] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    if (root_end != root.end() || real_end == real.end()) return std::nullopt;
    if (!std::filesystem::is_regular_file(real, ec) || !static_content_type(real)) {
      return std::nullopt;
    }
    return real;
  };
  if (auto real = inside(root / relative)) return *real;
  // A client-side route: a path without an extension that names no file.
  if (!relative.has_extension()) {
    if (auto index = inside(root / "index.html")) return *index;
  }
  return missing();
}

Handler static_files(std::optional<std::filesystem::path> root) {
  return [root = std::move(root)](Exchange& exchange) -> asio::awaitable<void> {
    const HttpRequest& request = exchange.request();
    if (!root) {
      if (request.segments.empty() ||
          (request.segments.size() == 1 && request.segments[0] == "index.html")) {
        HttpResponse reply = HttpResponse{.status = 200,
                                          .content_type = "text/html; charset=utf-8",
                                          .body = std::string(placeholder_page)};
        co_await exchange.respond(std::move(reply));
      } else {
        HttpResponse reply = error_response(404, "not_found", "no such file");
        co_await exchange.respond(std::move(reply));
      }
      co_return;
    }
    auto file = resolve_static_file(*root, request.segments);
    auto bytes = file ? base::read_file_limited(*file, static_file_limit)
                      : Result<std::string>(std::unexpected(file.error()));
    if (!bytes) {
      HttpResponse reply = error_response(404, "not_found", "no such file");
      co_await exchange.respond(std::move(reply));
      co_return;
    }
    HttpResponse response{.status = 200,
                          .content_type = static_content_type(*file).value_or("text/plain"),
                          .body = std::move(*bytes)};
    if (!request.segments.empty() && request.segments.front() == "assets") {
      response.headers.emplace_back("Cache-Control", "public, max-age=31536000, immutable");
    }
    co_await exchange.respond(std::move(response));
  };
}

}  // namespace ava::httpd
