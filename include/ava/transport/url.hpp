#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ava/base/error.hpp"

namespace ava::transport {

// An http:// or https:// URL split for a request. No user info, no fragment.
struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6 literals
  std::uint16_t port = 0;
  std::string target;  // path and query, at least "/"

  static Result<Url> parse(std::string_view text);
  bool tls() const { return scheme == "https"; }
  // "scheme://host:port", the key of a kept-alive connection.
  std::string origin() const;
  // The Host header value: the port is left out when it is the scheme's default.
  std::string host_header() const;
};

// Joins a base URL ("https://api.x.com/v1", with or without trailing slash)
// and a path ("/chat/completions").
std::string join_url(std::string_view base, std::string_view path);

}  // namespace ava::transport
