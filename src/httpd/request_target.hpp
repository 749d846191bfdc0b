#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/error.hpp"

namespace ava::httpd {

// A request target after the one decoding every part of the server uses
// (the fence, the router and the static files look at these fields only).
struct RequestTarget {
  std::string path;                   // "/" + the decoded segments joined by "/"
  std::vector<std::string> segments;  // decoded; "/" is none, "/a/" is {"a", ""}
  std::map<std::string, std::string, std::less<>> query;  // decoded, '+' is a space
};

// Accepts origin-form only ("/" path ["?" query], RFC 9112 3.2.1) and
// percent-decodes each segment and query part once. A segment that decodes
// to a '/', a backslash or a NUL, and a query part with a NUL, are refused:
// after decoding they would mean something else to whoever splits the path
// again. invalid_argument with the reason otherwise.
Result<RequestTarget> parse_request_target(std::string_view target);

}  // namespace ava::httpd
