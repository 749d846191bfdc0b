#include "ava/transport/proxy.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "ava/base/text.hpp"

namespace ava::transport {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

std::string first_set(const base::EnvLookup& env, const char* lower_name, const char* upper_name) {
  if (auto value = env(lower_name); value && !value->empty()) return *value;
  if (upper_name != nullptr) {
    if (auto value = env(upper_name); value && !value->empty()) return *value;
  }
  return {};
}

// One NO_PROXY entry split into host (lower case, no brackets, no leading
// dot) and an optional port.
struct NoProxyEntry {
  std::string host;
  std::optional<std::uint16_t> port;
};

NoProxyEntry parse_entry(std::string_view entry) {
  NoProxyEntry out;
  std::string_view host = entry;
  std::string_view port;
  if (host.starts_with('[')) {
    auto close = host.find(']');
    if (close != std::string_view::npos) {
      if (host.size() > close + 1 && host[close + 1] == ':') port = host.substr(close + 2);
      host = host.substr(1, close - 1);
    }
  } else if (std::ranges::count(host, ':') == 1) {  // more than one colon: a bare IPv6 address
    auto colon = host.find(':');
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.starts_with("*.")) host.remove_prefix(1);
  if (host.starts_with('.')) host.remove_prefix(1);
  out.host = base::ascii_lower(host);
  unsigned value = 0;
  auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (!port.empty() && ec == std::errc{} && ptr == port.data() + port.size() && value <= 65535) {
    out.port = static_cast<std::uint16_t>(value);
  }
  return out;
}

// Basic credentials from "user:password" (already percent-decoded enough for
// the common case; proxies rarely use reserved characters in credentials).
std::string basic_authorization(std::string_view user_info) {
  std::vector<unsigned char> encoded(4 * ((user_info.size() + 2) / 3) + 1);
  int length =
      EVP_EncodeBlock(encoded.data(), reinterpret_cast<const unsigned char*>(user_info.data()),
                      static_cast<int>(user_info.size()));
  return "Basic " + std::string(reinterpret_cast<const char*>(encoded.data()),
                                static_cast<std::size_t>(length));
}

}  // namespace

ProxyConfig proxy_config_from_env(const base::EnvLookup& env) {
  ProxyConfig config;
  config.https_proxy = first_set(env, "https_proxy", "HTTPS_PROXY");
  bool cgi = env("REQUEST_METHOD").has_value();
  config.http_proxy = first_set(env, "http_proxy", cgi ? nullptr : "HTTP_PROXY");
  config.no_proxy = first_set(env, "no_proxy", "NO_PROXY");
  return config;
}

bool no_proxy_matches(std::string_view no_proxy, std::string_view host, std::uint16_t port) {
  std::string name = base::ascii_lower(host);
  if (name.starts_with('[') && name.ends_with(']')) name = name.substr(1, name.size() - 2);
  while (!name.empty() && name.back() == '.') name.pop_back();  // "example.com." is absolute
  std::size_t at = 0;
  while (at <= no_proxy.size()) {
    std::size_t end = no_proxy.find_first_of(", ", at);
    if (end == std::string_view::npos) end = no_proxy.size();
    std::string_view raw = trim(no_proxy.substr(at, end - at));
    at = end + 1;
    if (raw.empty()) continue;
    if (raw == "*") return true;
    NoProxyEntry entry = parse_entry(raw);
    if (entry.host.empty() || (entry.port && *entry.port != port)) continue;
    if (name == entry.host) return true;
    if (name.size() > entry.host.size() && name.ends_with(entry.host) &&
        name[name.size() - entry.host.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

std::string ProxyRoute::display() const { return fmt::format("http://{}", proxy.host_header()); }

Result<std::optional<ProxyRoute>> proxy_for(const Url& target, const ProxyConfig& config) {
  const std::string& chosen = target.tls() ? config.https_proxy : config.http_proxy;
  std::string_view text = trim(chosen);
  if (text.empty() || no_proxy_matches(config.no_proxy, target.host, target.port)) {
    return std::nullopt;
  }
  std::string with_scheme = text.find("://") == std::string_view::npos
                                ? fmt::format("http://{}", text)
                                : std::string(text);
  // Credentials come before the host: take them out, Url refuses user info.
  ProxyRoute route;
  auto authority_start = with_scheme.find("://") + 3;
  auto authority_end = with_scheme.find_first_of("/?#", authority_start);
  std::string_view authority = std::string_view(with_scheme)
                                   .substr(authority_start, authority_end == std::string::npos
                                                                ? std::string::npos
                                                                : authority_end - authority_start);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    route.authorization = basic_authorization(authority.substr(0, at));
    with_scheme.erase(authority_start, at + 1);
  }
  auto proxy = Url::parse(with_scheme);
  if (!proxy) {
    return fail(ErrorCode::invalid_argument, fmt::format("bad proxy setting for {} targets: {}",
                                                         target.scheme, proxy.error().message));
  }
  if (proxy->tls()) {
    return fail(ErrorCode::unsupported,
                fmt::format("https:// proxies are not supported ({}): use http://{}",
                            proxy->host_header(), proxy->host_header()));
  }
  route.proxy = std::move(*proxy);
  if (route.proxy.target != "/") route.proxy.target = "/";
  return route;
}

}  // namespace ava::transport
