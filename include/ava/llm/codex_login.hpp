#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/base/log.hpp"
#include "ava/transport/http_client.hpp"

// The login the Codex CLI keeps in $CODEX_HOME/auth.json (~/.codex by
// default): an OpenAI API key, or ChatGPT OAuth tokens that Ava uses for the
// `codex` provider and refreshes as Codex does (POST to the OpenAI token
// endpoint with the refresh token, the rotated tokens written back to the
// same file). Ava never logs these tokens.
namespace ava::llm {

struct CodexTokens {
  base::Secret access_token;
  base::Secret refresh_token;
  base::Secret id_token;
  std::string account_id;            // sent as chatgpt-account-id
  std::int64_t last_refresh_ms = 0;  // 0: unknown
};

struct CodexAuth {
  std::optional<base::Secret> api_key;  // "OPENAI_API_KEY", when a key login
  std::optional<CodexTokens> tokens;    // "tokens", when a ChatGPT login
};

// $CODEX_HOME/auth.json, else $HOME/.codex/auth.json; empty when neither
// variable is set.
std::filesystem::path codex_auth_path(const base::EnvLookup& env);

// Reads the file (at most 1 MiB, JSON checked as untrusted). not_found when
// it is missing; parse naming the file when it is malformed.
Result<CodexAuth> read_codex_auth(const std::filesystem::path& path);

// The "exp" claim of a JWT, in Unix milliseconds; nullopt when the token is
// not a JWT with one (its signature is not checked: only timing is read).
std::optional<std::int64_t> jwt_expiry_ms(std::string_view jwt);

// Codex's rule: refresh when the access token expires within a minute, or
// when the last refresh is more than 8 days old.
bool codex_needs_refresh(const CodexTokens& tokens, std::int64_t now_ms);

// Where tokens are refreshed: CODEX_REFRESH_TOKEN_URL_OVERRIDE (as Codex
// reads it; tests point it at loopback), else https://auth.openai.com/oauth/token.
std::string codex_token_url(const base::EnvLookup& env);

// The `codex` provider's headers, fresh: one per auth.json in a process, so
// conversations sharing a login refresh its single-use refresh token once.
class CodexCredentials {
 public:
  // The shared instance for `path`.
  static std::shared_ptr<CodexCredentials> for_file(const std::filesystem::path& path,
                                                    std::string token_url,
                                                    transport::HttpClientOptions http);

  CodexCredentials(std::filesystem::path path, std::string token_url,
                   transport::HttpClientOptions http)
      : path_(std::move(path)), token_url_(std::move(token_url)), http_(std::move(http)) {}

  // authorization (Bearer access token) and chatgpt-account-id, refreshing
  // first when the tokens are due, or when `rejected` (the server answered
  // 401 to the access token last given).
  boost::asio::awaitable<Result<std::vector<transport::HttpHeader>>> headers(bool rejected);

 private:
  boost::asio::awaitable<Result<CodexTokens>> refresh(const CodexTokens& tokens);

  std::filesystem::path path_;
  std::string token_url_;
  transport::HttpClientOptions http_;
  std::mutex mutex_;
  bool refreshing_ = false;  // under mutex_: others wait, then read the new file
};

}  // namespace ava::llm
