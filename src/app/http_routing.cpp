// The Beast-free half of the HTTP layer: routing, the fence and responses.
#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "app/http_server.hpp"
#include "ava/base/text.hpp"
#include "ava/protocol/wire.hpp"

namespace ava::app {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> segments;
  std::size_t start = 1;  // paths begin with '/'
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    segments.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return segments;
}

// Compares in time that depends only on the expected length, so response
// timing does not reveal how much of a guessed token was right.
bool constant_time_equal(std::string_view given, std::string_view expected) {
  unsigned char difference = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const char g = i < given.size() ? given[i] : '\0';
    difference |= static_cast<unsigned char>(g ^ expected[i]);
  }
  return difference == 0;
}

}  // namespace

std::string_view HttpRequest::header(std::string_view lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string_view() : std::string_view(it->second);
}

std::optional<std::string_view> HttpRequest::query_value(std::string_view name) const {
  auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return std::string_view(it->second);
}

HttpResponse json_response(int status, const nlohmann::json& body) {
  return HttpResponse{.status = status, .body = body.dump()};
}

HttpResponse error_response(int status, std::string_view code, std::string_view message) {
  return json_response(status, protocol::error_body(code, message));
}

int http_status_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument:
    case ErrorCode::parse: return 400;
    case ErrorCode::permission_denied: return 403;
    case ErrorCode::not_found: return 404;
    case ErrorCode::already_exists:
    case ErrorCode::conflict: return 409;
    case ErrorCode::limit_exceeded: return 413;
    case ErrorCode::unavailable: return 503;
    case ErrorCode::timeout: return 504;
    case ErrorCode::unsupported: return 501;
    default: return 500;
  }
}

HttpResponse error_response(const Error& error) {
  return error_response(http_status_for(error.code), to_string(error.code), error.message);
}

void Router::add(std::string method, const std::string& pattern, Handler handler) {
  auto segments = split_path(pattern);
  for (auto& segment : segments) {
    if (segment.size() > 1 && segment.front() == '{' && segment.back() == '}') segment = "{}";
  }
  routes_.push_back(Route{std::move(method), std::move(segments), std::move(handler)});
}

std::variant<const Handler*, HttpResponse> Router::match(HttpRequest& request) const {
  const auto segments = split_path(request.path);
  bool path_matched = false;
  for (const auto& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    std::vector<std::string> params;
    bool fits = true;
    for (std::size_t i = 0; i < segments.size() && fits; ++i) {
      if (route.segments[i] == "{}") {
        fits = !segments[i].empty();
        params.push_back(segments[i]);
      } else {
        fits = route.segments[i] == segments[i];
      }
    }
    if (!fits) continue;
    path_matched = true;
    if (route.method != request.method) continue;
    request.params = std::move(params);
    return &route.handler;
  }
  if (!path_matched && fallback_ && (request.method == "GET" || request.method == "HEAD") &&
      request.path.rfind("/api/", 0) != 0) {
    return &fallback_;
  }
  if (path_matched) {
    return error_response(405, "method_not_allowed",
                          request.method + " is not allowed on " + request.path);
  }
  return error_response(404, "not_found", "no route for " + request.path);
}

std::optional<HttpResponse> Fence::check(const HttpRequest& request) const {
  const std::string port_suffix = ":" + std::to_string(port);
  const std::string host = base::ascii_lower(request.header("host"));
  const bool host_ok = host == "127.0.0.1" + port_suffix || host == "localhost" + port_suffix ||
                       host == "[::1]" + port_suffix;
  if (!host_ok) {
    return error_response(403, "forbidden_host",
                          "Host must be 127.0.0.1, localhost or [::1] with this server's port");
  }
  if (request.headers.contains("origin")) {
    const std::string origin = base::ascii_lower(request.header("origin"));
    if (origin != "http://" + host) {
      return error_response(403, "forbidden_origin", "cross-origin requests are not allowed");
    }
  }
  if (token && request.path.rfind("/api/", 0) == 0) {
    const std::string_view authorization = request.header("authorization");
    constexpr std::string_view scheme = "Bearer ";
    const bool has_scheme = authorization.size() > scheme.size() &&
                            base::ascii_lower(authorization.substr(0, scheme.size())) == "bearer ";
    if (!has_scheme || !constant_time_equal(authorization.substr(scheme.size()), *token)) {
      HttpResponse refusal =
          error_response(401, "unauthorized", "a valid bearer token is required");
      refusal.headers.emplace_back("WWW-Authenticate", "Bearer");
      return refusal;
    }
  }
  return std::nullopt;
}

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int value = 0;
      for (int k = 1; k <= 2; ++k) {
        const char h = text[i + k];
        value <<= 4;
        if (h >= '0' && h <= '9')
          value |= h - '0';
        else if (h >= 'a' && h <= 'f')
          value |= h - 'a' + 10;
        else if (h >= 'A' && h <= 'F')
          value |= h - 'A' + 10;
        else
          return std::nullopt;
      }
      out.push_back(static_cast<char>(value));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace ava::app
