#include "ava/base/url_encoding.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/params_view.hpp>
#include <boost/url/parse_query.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace ava::base {

std::string percent_encode(std::string_view text) {
  return boost::urls::encode(text, boost::urls::unreserved_chars);
}

std::string form_encode(const QueryParams& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += percent_encode(name);
    out += '=';
    out += percent_encode(value);
  }
  return out;
}

Result<QueryParams> parse_query(std::string_view query) {
  // Boost 1.81's parse_query keeps the query as a view made from its data
  // pointer alone, so it reads on to the next NUL: past the end of the
  // caller's text, or into whatever follows it (found by the fuzzer). A
  // NUL-terminated copy keeps it inside; a raw NUL is refused by the grammar
  // before that matters.
  if (query.empty()) return QueryParams{};
  const std::string terminated(query);
  auto encoded = boost::urls::parse_query(terminated);
  if (!encoded) {
    return fail(ErrorCode::invalid_argument, "a malformed query: " + encoded.error().message());
  }
  boost::urls::encoding_opts plus_is_space;
  plus_is_space.space_as_plus = true;
  QueryParams out;
  for (const auto& param : boost::urls::params_view(*encoded, plus_is_space)) {
    if (param.key.empty() && !param.has_value) continue;  // "a=1&&b=2"
    if (param.key.find('\0') != std::string::npos || param.value.find('\0') != std::string::npos) {
      return fail(ErrorCode::invalid_argument, "a query parameter decodes to NUL");
    }
    out.emplace_back(param.key, param.value);
  }
  return out;
}

}  // namespace ava::base
