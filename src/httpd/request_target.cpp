#include "httpd/request_target.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

namespace ava::httpd {
namespace {

constexpr std::size_t max_target_bytes = 16 * 1024;

bool clean_segment(std::string_view segment) {
  return segment.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

}  // namespace

Result<RequestTarget> parse_request_target(std::string_view target) {
  if (target.empty() || target.front() != '/') {
    return fail(ErrorCode::invalid_argument, "the request target must be a path starting with '/'");
  }
  if (target.size() > max_target_bytes) {
    return fail(ErrorCode::invalid_argument, "the request target is too long");
  }
  auto parsed = boost::urls::parse_origin_form(target);
  if (!parsed) {
    return fail(ErrorCode::invalid_argument,
                "the request target is not a valid path and query: " + parsed.error().message());
  }
  RequestTarget out;
  for (std::string segment : parsed->segments()) {
    if (!clean_segment(segment)) {
      return fail(ErrorCode::invalid_argument,
                  "a path segment decodes to '/', '\\' or NUL, which paths here never hold");
    }
    out.path += '/';
    out.path += segment;
    out.segments.push_back(std::move(segment));
  }
  if (out.path.empty()) out.path = "/";
  if (parsed->has_query()) {
    boost::urls::encoding_opts plus_is_space;
    plus_is_space.space_as_plus = true;
    for (const auto& param : parsed->params(plus_is_space)) {
      if (param.key.find('\0') != std::string::npos ||
          param.value.find('\0') != std::string::npos) {
        return fail(ErrorCode::invalid_argument, "a query parameter decodes to NUL");
      }
      if (param.key.empty()) continue;
      out.query.emplace(param.key, param.value);  // the first of repeated keys wins
    }
  }
  return out;
}

}  // namespace ava::httpd
