#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "ava/base/error.hpp"

namespace ava::base {

enum class LogLevel { trace, debug, info, warn, error, off };

struct LogOptions {
  LogLevel level = LogLevel::warn;
  bool to_stderr = true;
  std::optional<std::filesystem::path> file;  // appended to, created 0600
};

// Installs the default spdlog logger. Every sink sits behind a redacting sink,
// so a credential that slips into a message is masked before it is written.
Result<void> setup_logging(const LogOptions& options);

Result<LogLevel> parse_log_level(std::string_view name);

// Masks credentials in free text: provider keys (sk-..., sk-ant-...),
// "Bearer <token>", and the values of key/value pairs whose key names a
// secret (api_key, token, secret, password, authorization, ...). URLs lose
// their userinfo ("https://[redacted]@host") and the values of query
// parameters that grant something (state, code, code_challenge, sig, key,
// and names with token, secret, password, ...).
std::string redact(std::string_view text);

// redact() for one URL, to show it in a listing or an error message.
std::string redact_url(std::string_view url);

// A server's command-line arguments for a listing: the value after a flag
// naming a secret ("--api-key VALUE"), "--token=VALUE" and "API_KEY=VALUE"
// forms, and URLs and keys inside arguments are masked.
std::vector<std::string> redact_arguments(const std::vector<std::string>& args);

// A credential in memory. Formats as "[redacted]" so it cannot be logged by
// accident; reveal() is the one explicit way to the value.
class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}
  const std::string& reveal() const { return value_; }
  bool empty() const { return value_.empty(); }

 private:
  std::string value_;
};

}  // namespace ava::base

template <>
struct fmt::formatter<ava::base::Secret> : fmt::formatter<std::string_view> {
  auto format(const ava::base::Secret&, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format("[redacted]", ctx);
  }
};
