#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"
#include "ava/base/home.hpp"
#include "ava/transport/url.hpp"

namespace ava::transport {

// The proxy variables as curl and the official SDKs read them. Empty fields
// mean "not set". Loopback is not special: list it in no_proxy to bypass.
struct ProxyConfig {
  std::string https_proxy;  // for https:// targets, reached through CONNECT
  std::string http_proxy;   // for http:// targets, sent the absolute-form request
  std::string no_proxy;     // "*", or host suffixes / hosts / host:port, comma separated
};

// https_proxy/HTTPS_PROXY, http_proxy/HTTP_PROXY and no_proxy/NO_PROXY; the
// lower-case name wins, as in curl. Upper-case HTTP_PROXY is ignored when
// REQUEST_METHOD is set: under CGI a client's "Proxy:" header arrives by that
// name ("httpoxy").
ProxyConfig proxy_config_from_env(const base::EnvLookup& env = base::process_env);

// Whether NO_PROXY lists the host (and port): "*" matches all; "example.com"
// and ".example.com" match it and its subdomains; "host:port" only that port.
// Host names compare case-insensitively; IPv6 literals may be bracketed.
bool no_proxy_matches(std::string_view no_proxy, std::string_view host, std::uint16_t port);

// A proxy to go through: where it is and the Proxy-Authorization value for
// the credentials in its URL (empty without). Never log `authorization`.
struct ProxyRoute {
  Url proxy;
  std::string authorization;
  // "http://host:port" without credentials, for error messages.
  std::string display() const;
};

// The route for one target, nullopt for a direct connection. A proxy URL may
// omit the scheme ("host:3128" is http); https:// proxies are unsupported.
Result<std::optional<ProxyRoute>> proxy_for(const Url& target, const ProxyConfig& config);

}  // namespace ava::transport
