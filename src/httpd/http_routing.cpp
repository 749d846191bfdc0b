// The Beast-free half of the HTTP layer: routing, the fence and responses.
#include <algorithm>
#include <cctype>
#include <charconv>

#include <nlohmann/json.hpp>

#include "ava/base/constant_time.hpp"
#include "ava/base/text.hpp"
#include "ava/httpd/http_server.hpp"
#include "ava/httpd/login_gate.hpp"
#include "ava/protocol/wire.hpp"

namespace ava::httpd {
namespace {

// A route pattern's segments, split as parse_request_target splits a path
// ("/" has none). Patterns are the program's own literals.
std::vector<std::string> pattern_segments(std::string_view pattern) {
  std::vector<std::string> segments;
  if (pattern.size() <= 1) return segments;
  std::size_t start = 1;
  while (start <= pattern.size()) {
    const std::size_t end = std::min(pattern.find('/', start), pattern.size());
    segments.emplace_back(pattern.substr(start, end - start));
    start = end + 1;
  }
  return segments;
}

// Exactly application/json, with at most a UTF-8 charset: a form or a
// text/plain body (which a page may send cross-site without a preflight)
// never reaches a route, whatever it appends ("text/plain;x=application/json").
bool is_json_media_type(std::string_view value) {
  const std::string lowered = base::ascii_lower(value);
  std::string_view type = lowered;
  std::string_view params;
  if (const auto semicolon = type.find(';'); semicolon != std::string_view::npos) {
    params = type.substr(semicolon + 1);
    type = type.substr(0, semicolon);
  }
  auto trim = [](std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
  };
  if (trim(type) != "application/json") return false;
  params = trim(params);
  return params.empty() || params == "charset=utf-8" || params == "charset=\"utf-8\"";
}

HttpResponse unauthorized(const HttpRequest& request) {
  if (is_api_request(request)) {
    HttpResponse refusal = error_response(
        401, "unauthorized",
        "a valid bearer token or login cookie is required (open the login URL that `ava --serve` "
        "printed, or run `ava backend open`)");
    refusal.headers.emplace_back("WWW-Authenticate", "Bearer");
    return refusal;
  }
  return HttpResponse{.status = 401,
                      .content_type = "text/html; charset=utf-8",
                      .body = sign_in_page("This page needs a login link.")};
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
    // 507 Insufficient Storage: the request was not made durable; retrying
    // after space returns is safe.
    case ErrorCode::no_space: return 507;
    default: return 500;
  }
}

HttpResponse error_response(const Error& error) {
  return error_response(http_status_for(error.code), to_string(error.code), error.message);
}

void Router::add(std::string method, const std::string& pattern, Handler handler) {
  auto segments = pattern_segments(pattern);
  for (auto& segment : segments) {
    if (segment.size() > 1 && segment.front() == '{' && segment.back() == '}') segment = "{}";
  }
  routes_.push_back(Route{std::move(method), std::move(segments), std::move(handler)});
}

std::variant<const Handler*, HttpResponse> Router::match(HttpRequest& request) const {
  const auto& segments = request.segments;
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
      !is_api_request(request)) {
    return &fallback_;
  }
  if (path_matched) {
    return error_response(405, "method_not_allowed",
                          request.method + " is not allowed on " + request.path);
  }
  return error_response(404, "not_found", "no route for " + request.path);
}

bool is_api_request(const HttpRequest& request) {
  return !request.segments.empty() && request.segments.front() == "api";
}

bool is_websocket_upgrade(const HttpRequest& request) {
  if (request.method != "GET" || base::ascii_lower(request.header("upgrade")) != "websocket") {
    return false;
  }
  // Connection is a comma-separated token list ("keep-alive, Upgrade").
  const std::string connection = base::ascii_lower(request.header("connection"));
  std::string_view rest = connection;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view token = rest.substr(0, comma);
    while (!token.empty() && (token.front() == ' ' || token.front() == '\t'))
      token.remove_prefix(1);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
    if (token == "upgrade") return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

bool is_login_request(const HttpRequest& request) {
  if (request.method == "POST") {
    return request.segments.size() == 2 && request.segments[0] == "api" &&
           request.segments[1] == "login";
  }
  return request.method == "GET" && request.segments.empty() && request.query.contains("login");
}

std::optional<std::uint16_t> loopback_host_port(std::string_view host) {
  for (std::string_view name : {"127.0.0.1:", "localhost:", "[::1]:"}) {
    if (!host.starts_with(name)) continue;
    std::string_view digits = host.substr(name.size());
    unsigned value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size() || value == 0 || value > 65535) {
      return std::nullopt;
    }
    return static_cast<std::uint16_t>(value);
  }
  return std::nullopt;
}

bool Fence::holds_token(const HttpRequest& request) const {
  if (!token) return false;
  const std::string_view authorization = request.header("authorization");
  constexpr std::string_view scheme = "Bearer ";
  const bool has_scheme = authorization.size() > scheme.size() &&
                          base::ascii_lower(authorization.substr(0, scheme.size())) == "bearer ";
  return has_scheme && base::constant_time_equal(authorization.substr(scheme.size()), *token);
}

std::optional<HttpResponse> Fence::check(const HttpRequest& request) const {
  const std::string host = base::ascii_lower(request.header("host"));
  // A loopback name is required (DNS rebinding sends the attacker's name),
  // with this server's port or the local port of a registered SSH tunnel.
  const auto host_port = loopback_host_port(host);
  const bool port_ok =
      host_port && (*host_port == port || (logins && logins->is_tunnel_port(*host_port)));
  if (!port_ok) {
    return error_response(403, "forbidden_host",
                          "Host must be 127.0.0.1, localhost or [::1] with this server's port");
  }
  if (request.headers.contains("origin")) {
    const std::string origin = base::ascii_lower(request.header("origin"));
    if (origin != "http://" + host) {
      return error_response(403, "forbidden_origin", "cross-origin requests are not allowed");
    }
  }
  // Browsers say where a request comes from; another site, or a page of
  // another port on this host ("same-site"), is refused even without Origin.
  if (request.headers.contains("sec-fetch-site")) {
    const std::string site = base::ascii_lower(request.header("sec-fetch-site"));
    if (site != "same-origin" && site != "none") {
      return error_response(403, "forbidden_origin", "cross-site requests are not allowed");
    }
  }
  const bool has_body = !request.body.empty() || request.headers.contains("content-type");
  if (request.method != "GET" && request.method != "HEAD" && has_body &&
      !is_json_media_type(request.header("content-type"))) {
    return error_response(415, "unsupported_media_type",
                          "request bodies must be sent as Content-Type: application/json");
  }
  if (is_login_request(request)) return std::nullopt;
  if (holds_token(request)) return std::nullopt;
  if (logins && logins->admits(request.header("cookie"))) return std::nullopt;
  return unauthorized(request);
}

}  // namespace ava::httpd
