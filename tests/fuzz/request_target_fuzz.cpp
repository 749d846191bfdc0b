// The API server's request target decoding (ava::httpd::parse_request_target):
// every route, the fence and the static files see only what it returns.
//
// Checks: a success is an origin-form target no longer than the server
// takes; path is "/" + the segments joined; no segment holds '/', '\' or NUL
// and no query part NUL (they would mean something else to whoever splits
// the path again); the query keys are not empty; and the target re-encoded
// from the result (every byte but letters, digits, '-', '_' and '~'
// percent-encoded) decodes to the same segments, path and query.
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "httpd/request_target.hpp"

namespace {

std::string encode(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
        (byte >= '0' && byte <= '9') || c == '-' || c == '_' || c == '~') {
      out += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", byte);
      out += hex;
    }
  }
  return out;
}

bool clean(std::string_view text, std::string_view forbidden) {
  return text.find_first_of(forbidden) == std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto target = ava::fuzz::as_text(data, size);
  const auto parsed = ava::httpd::parse_request_target(target);
  if (!parsed) {
    FUZZ_CHECK(parsed.error().code == ava::ErrorCode::invalid_argument);
    return 0;
  }
  FUZZ_CHECK(!target.empty() && target.front() == '/');
  FUZZ_CHECK(target.size() <= 16 * 1024);

  std::string path;
  std::string encoded;
  for (const auto& segment : parsed->segments) {
    FUZZ_CHECK(clean(segment, std::string_view("/\\\0", 3)));
    path += "/" + segment;
    encoded += "/" + encode(segment);
  }
  if (path.empty()) path = encoded = "/";
  FUZZ_CHECK(parsed->path == path);

  std::string query;
  for (const auto& [key, value] : parsed->query) {
    FUZZ_CHECK(!key.empty());
    FUZZ_CHECK(clean(key, std::string_view("\0", 1)) && clean(value, std::string_view("\0", 1)));
    query += (query.empty() ? "?" : "&") + encode(key) + "=" + encode(value);
  }

  const auto again = ava::httpd::parse_request_target(encoded + query);
  if (encoded.size() + query.size() > 16 * 1024) return 0;  // re-encoding can triple the size
  FUZZ_CHECK(again.has_value());
  // "/" and "//" both have the path "/"; the re-encoding of a lone empty
  // segment is "/", which has none.
  if (!(parsed->segments.size() == 1 && parsed->segments[0].empty())) {
    FUZZ_CHECK(again->segments == parsed->segments);
  }
  FUZZ_CHECK(again->path == parsed->path);
  FUZZ_CHECK(again->query == parsed->query);
  return 0;
}
