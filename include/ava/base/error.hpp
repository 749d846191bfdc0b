#pragma once

#include <expected>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>

namespace ava::base {

// The project's one error vocabulary. Codes say what a caller can do about a
// failure; the message says what happened, for a person.
enum class ErrorCode {
  invalid_argument,   // the caller passed something malformed
  not_found,          // a named thing does not exist
  already_exists,     // creating something that is already there
  permission_denied,  // the OS or a policy refused
  conflict,           // the request does not fit the current state
  io,                 // a read, write or syscall failed
  no_space,           // the disk or quota is full: retry once space returns
  parse,              // input could not be decoded
  corrupt,            // stored data failed an integrity check
  limit_exceeded,     // an explicit bound was hit
  timeout,            // a deadline passed
  cancelled,          // the operation was cancelled on purpose
  unavailable,        // a peer or service cannot be reached right now
  protocol,           // a peer broke the wire protocol
  unsupported,        // valid, but not implemented here
  internal,           // a bug: an invariant did not hold
};

std::string_view to_string(ErrorCode code) noexcept;

struct [[nodiscard]] Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  std::source_location where = std::source_location::current();

  // "context: message", keeping code and origin, for errors passed upward.
  Error with_context(std::string_view context) &&;
  // "code: message" for logs and CLI output.
  std::string describe() const;
};

template <class T>
using Result = std::expected<T, Error>;

// Builds the unexpected value to return from a function returning Result<T>.
inline std::unexpected<Error> fail(ErrorCode code, std::string message,
                                   std::source_location where = std::source_location::current()) {
  return std::unexpected<Error>(Error{code, std::move(message), where});
}

// Wraps errno (captured by the caller) into an io error naming the operation.
std::unexpected<Error> fail_errno(std::string_view operation, int error_number,
                                  std::source_location where = std::source_location::current());

}  // namespace ava::base

namespace ava {
using base::Error;
using base::ErrorCode;
using base::fail;
template <class T>
using Result = base::Result<T>;
}  // namespace ava

// Early return on error. Statement forms only: GCC miscompiles statement
// expressions inside coroutines (bug 115851), so AVA_CO_TRY mirrors AVA_TRY.
//   AVA_TRY(auto file, open_file(path));
//   AVA_TRY_VOID(file.write(bytes));
// NOLINTBEGIN(bugprone-macro-parentheses): decl and ret are statements, not values.
#define AVA_CONCAT_INNER(a, b) a##b
#define AVA_CONCAT(a, b) AVA_CONCAT_INNER(a, b)
#define AVA_TRY_IMPL(tmp, ret, decl, expr)                           \
  auto tmp = (expr);                                                 \
  if (!tmp.has_value()) ret std::unexpected(std::move(tmp).error()); \
  decl = std::move(tmp).value()
#define AVA_TRY(decl, expr) AVA_TRY_IMPL(AVA_CONCAT(ava_try_, __LINE__), return, decl, expr)
#define AVA_CO_TRY(decl, expr) AVA_TRY_IMPL(AVA_CONCAT(ava_try_, __LINE__), co_return, decl, expr)
#define AVA_TRY_VOID_IMPL(tmp, ret, expr) \
  if (auto tmp = (expr); !tmp.has_value()) ret std::unexpected(std::move(tmp).error())
#define AVA_TRY_VOID(expr) AVA_TRY_VOID_IMPL(AVA_CONCAT(ava_try_, __LINE__), return, expr)
#define AVA_CO_TRY_VOID(expr) AVA_TRY_VOID_IMPL(AVA_CONCAT(ava_try_, __LINE__), co_return, expr)
// NOLINTEND(bugprone-macro-parentheses)
