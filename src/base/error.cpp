#include "ava/base/error.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace ava::base {

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::already_exists: return "already_exists";
    case ErrorCode::permission_denied: return "permission_denied";
    case ErrorCode::conflict: return "conflict";
    case ErrorCode::io: return "io";
    case ErrorCode::no_space: return "no_space";
    case ErrorCode::parse: return "parse";
    case ErrorCode::corrupt: return "corrupt";
    case ErrorCode::limit_exceeded: return "limit_exceeded";
    case ErrorCode::timeout: return "timeout";
    case ErrorCode::cancelled: return "cancelled";
    case ErrorCode::unavailable: return "unavailable";
    case ErrorCode::protocol: return "protocol";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::internal: return "internal";
  }
  return "unknown";
}

Error Error::with_context(std::string_view context) && {
  message = fmt::format("{}: {}", context, message);
  return std::move(*this);
}

std::string Error::describe() const { return fmt::format("{}: {}", to_string(code), message); }

std::unexpected<Error> fail_errno(std::string_view operation, int error_number,
                                  std::source_location where) {
  ErrorCode code = ErrorCode::io;
  if (error_number == ENOENT) code = ErrorCode::not_found;
  if (error_number == EACCES || error_number == EPERM) code = ErrorCode::permission_denied;
  if (error_number == EEXIST) code = ErrorCode::already_exists;
  if (error_number == ETIMEDOUT) code = ErrorCode::timeout;
  if (error_number == ECANCELED) code = ErrorCode::cancelled;
  if (error_number == ENOSPC || error_number == EDQUOT) code = ErrorCode::no_space;
  return fail(code, fmt::format("{}: {}", operation, std::strerror(error_number)), where);
}

}  // namespace ava::base
