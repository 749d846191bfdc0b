#include "ava/transport/url.hpp"

#include <charconv>

#include <fmt/format.h>

namespace ava::transport {

Result<Url> Url::parse(std::string_view text) {
  Url url;
  auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) {
    return fail(ErrorCode::invalid_argument, fmt::format("URL without scheme: {}", text));
  }
  url.scheme = std::string(text.substr(0, scheme_end));
  for (auto& c : url.scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (url.scheme != "http" && url.scheme != "https") {
    return fail(ErrorCode::invalid_argument,
                fmt::format("unsupported URL scheme '{}'", url.scheme));
  }
  std::string_view rest = text.substr(scheme_end + 3);
  auto path_start = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_start);
  std::string_view path = path_start == std::string_view::npos ? "" : rest.substr(path_start);
  if (auto fragment = path.find('#'); fragment != std::string_view::npos)
    path = path.substr(0, fragment);
  if (authority.find('@') != std::string_view::npos) {
    return fail(ErrorCode::invalid_argument, "URLs with user info are not accepted");
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos)
      return fail(ErrorCode::invalid_argument, "bad IPv6 literal in URL");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return fail(ErrorCode::invalid_argument, "bad URL authority");
      port_text = after.substr(1);
    }
  } else {
    auto colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty())
    return fail(ErrorCode::invalid_argument, fmt::format("URL without host: {}", text));
  url.port = url.tls() ? 443 : 80;
  if (!port_text.empty()) {
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc{} || ptr != port_text.data() + port_text.size() || value == 0 ||
        value > 65535) {
      return fail(ErrorCode::invalid_argument, fmt::format("bad port in URL: {}", text));
    }
    url.port = static_cast<std::uint16_t>(value);
  }
  url.target = path.empty() ? "/" : std::string(path);
  if (url.target.front() == '?') url.target.insert(0, "/");
  return url;
}

std::string Url::origin() const { return fmt::format("{}://{}:{}", scheme, host, port); }

std::string Url::host_header() const {
  bool ipv6 = host.find(':') != std::string::npos;
  std::string name = ipv6 ? "[" + host + "]" : host;
  bool default_port = (tls() && port == 443) || (!tls() && port == 80);
  return default_port ? name : fmt::format("{}:{}", name, port);
}

std::string join_url(std::string_view base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return fmt::format("{}/{}", base, path);
}

}  // namespace ava::transport
