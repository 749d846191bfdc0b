#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ava/base/error.hpp"

// Percent-coding and application/x-www-form-urlencoded through Boost.URL, the
// one URL implementation every package uses (the HTTP server's request
// targets, OAuth's forms and redirects).
namespace ava::base {

// Name/value pairs in their order; a repeated name appears once per use.
using QueryParams = std::vector<std::pair<std::string, std::string>>;

// Every byte but RFC 3986's unreserved characters (ALPHA DIGIT - . _ ~)
// becomes %XX (upper-case hex); a space is %20, never '+'.
std::string percent_encode(std::string_view text);

// "a=1&b=2" with each name and value percent-encoded.
std::string form_encode(const QueryParams& params);

// A query or form body ("a=1&b=x+y"): '+' decodes to a space, a part without
// '=' has an empty value, empty parts are skipped. invalid_argument for a
// malformed escape ("%zz", a '%' at the end) or a NUL after decoding, so a
// caller never acts on text that means something else once decoded.
Result<QueryParams> parse_query(std::string_view query);

}  // namespace ava::base
