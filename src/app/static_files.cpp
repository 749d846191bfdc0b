#include "app/static_files.hpp"

#include <unistd.h>

#include <array>
#include <cstdlib>

#include "ava/base/private_file.hpp"

namespace ava::app {
namespace {

namespace asio = boost::asio;
constexpr std::size_t static_file_limit = std::size_t{64} * 1024 * 1024;

std::string content_type_of(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json" || ext == ".map") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".woff2") return "font/woff2";
  if (ext == ".wasm") return "application/wasm";
  if (ext == ".txt") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

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

Handler static_files(std::optional<std::filesystem::path> root) {
  return [root = std::move(root)](Exchange& exchange) -> asio::awaitable<void> {
    const std::string& path = exchange.request().path;
    if (!root) {
      if (path == "/" || path == "/index.html") {
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
    // Only plain relative segments: no "..", no hidden files.
    std::filesystem::path relative =
        path.size() > 1 ? std::filesystem::path(path.substr(1)) : "index.html";
    bool safe = path.find('\0') == std::string::npos;
    for (const auto& part : relative) {
      const std::string name = part.string();
      if (name.empty() || name == "." || name == ".." || name.front() == '.') safe = false;
    }
    if (!safe) {
      HttpResponse reply = error_response(404, "not_found", "no such file");
      co_await exchange.respond(std::move(reply));
      co_return;
    }
    std::error_code ec;
    std::filesystem::path file = *root / relative;
    if (!std::filesystem::is_regular_file(file, ec)) {
      if (relative.has_extension()) {
        HttpResponse reply = error_response(404, "not_found", "no such file");
        co_await exchange.respond(std::move(reply));
        co_return;
      }
      file = *root / "index.html";  // a client-side route
    }
    auto bytes = base::read_file_limited(file, static_file_limit);
    if (!bytes) {
      HttpResponse reply = error_response(404, "not_found", "no such file");
      co_await exchange.respond(std::move(reply));
      co_return;
    }
    HttpResponse response{
        .status = 200, .content_type = content_type_of(file), .body = std::move(*bytes)};
    if (relative.string().rfind("assets/", 0) == 0) {
      response.headers.emplace_back("Cache-Control", "public, max-age=31536000, immutable");
    }
    co_await exchange.respond(std::move(response));
  };
}

}  // namespace ava::app
