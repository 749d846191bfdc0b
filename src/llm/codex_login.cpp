// Codex's auth.json: reading it, deciding when its tokens are due, and
// refreshing them with a single-use refresh token, written back for Codex
// and Ava alike.

#include "ava/llm/codex_login.hpp"

#include <ctime>
#include <map>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/base64.hpp"
#include "ava/base/clock.hpp"
#include "ava/base/json.hpp"
#include "ava/base/private_file.hpp"
#include "llm/settings_files.hpp"

namespace ava::llm {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// Codex's public OAuth client and the scope it refreshes with.
constexpr std::string_view codex_client_id = "app_EMoamEEZ73f0CkXaXp7hrann";
constexpr std::string_view refresh_scope = "openid profile email";
constexpr std::int64_t refresh_every_ms = std::int64_t{8} * 24 * 3600 * 1000;
constexpr std::int64_t expiry_margin_ms = 60'000;

std::string env_value(const base::EnvLookup& env, const char* name) {
  auto value = env(name);
  return value ? *value : std::string();
}

// "2025-06-01T12:34:56.789Z" or "...+02:00": Unix milliseconds, 0 when not RFC 3339.
std::int64_t parse_rfc3339_ms(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return 0;
  std::string_view rest = std::string_view(text).substr(static_cast<std::size_t>(consumed));
  if (rest.starts_with('.')) {
    rest.remove_prefix(1);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
  }
  std::int64_t offset_s = 0;
  if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    int hours = 0;
    int minutes = 0;
    if (std::sscanf(std::string(rest).c_str() + 1, "%2d:%2d", &hours, &minutes) != 2) return 0;
    offset_s = (hours * 3600 + minutes * 60) * (rest[0] == '+' ? 1 : -1);
  } else if (rest != "Z" && rest != "z") {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t seconds = ::timegm(&tm);
  if (seconds == static_cast<std::time_t>(-1)) return 0;
  return (static_cast<std::int64_t>(seconds) - offset_s) * 1000;
}

std::string rfc3339_now() {
  const std::int64_t now_ms = base::unix_ms_now();
  const std::time_t seconds = static_cast<std::time_t>(now_ms / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, now_ms % 1000);
}

Result<json> read_document(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return fail(ErrorCode::not_found, fmt::format("{}: no Codex login", path.string()));
  AVA_TRY(auto text, base::read_file_limited(path, detail::settings_file_limit));
  auto document =
      base::parse_json(text, {.max_depth = 16, .max_bytes = detail::settings_file_limit});
  if (!document || !document->is_object())
    return fail(ErrorCode::parse, fmt::format("{}: not a JSON object", path.string()));
  return std::move(*document);
}

std::string error_text(const transport::HttpResponse& reply) {
  const auto body = base::parse_json(reply.body).value_or(json());
  const auto error = base::json_field<json>(body, "error").value_or(json());
  if (error.is_string()) {  // OAuth's {"error": "invalid_grant", "error_description": ...}
    const std::string description = base::json_value(body, "error_description", std::string());
    return error.get<std::string>() + (description.empty() ? "" : ": " + description);
  }
  std::string message = base::json_value(error, "message", std::string());
  if (message.empty()) message = base::json_value(body, "error_description", std::string());
  return message.empty() ? fmt::format("HTTP {}", reply.status)
                         : fmt::format("HTTP {}: {}", reply.status, message);
}

}  // namespace

std::filesystem::path codex_auth_path(const base::EnvLookup& env) {
  if (auto home = env_value(env, "CODEX_HOME"); !home.empty())
    return std::filesystem::path(home) / "auth.json";
  if (auto home = env_value(env, "HOME"); !home.empty())
    return std::filesystem::path(home) / ".codex" / "auth.json";
  return {};
}

Result<CodexAuth> read_codex_auth(const std::filesystem::path& path) {
  AVA_TRY(auto document, read_document(path));
  CodexAuth auth;
  if (auto key = base::json_field<std::string>(document, "OPENAI_API_KEY"); key && !key->empty())
    auth.api_key = base::Secret(std::move(*key));
  const auto tokens = base::json_field<json>(document, "tokens");
  if (tokens && tokens->is_object()) {
    CodexTokens out{
        .access_token = base::Secret(base::json_value(*tokens, "access_token", std::string())),
        .refresh_token = base::Secret(base::json_value(*tokens, "refresh_token", std::string())),
        .id_token = base::Secret(base::json_value(*tokens, "id_token", std::string())),
        .account_id = base::json_value(*tokens, "account_id", std::string()),
        .last_refresh_ms =
            parse_rfc3339_ms(base::json_value(document, "last_refresh", std::string()))};
    if (!out.access_token.empty() || !out.refresh_token.empty()) auth.tokens = std::move(out);
  }
  return auth;
}

std::optional<std::int64_t> jwt_expiry_ms(std::string_view jwt) {
  const auto first = jwt.find('.');
  const auto second = jwt.find('.', first == std::string_view::npos ? first : first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) return std::nullopt;
  std::string payload(jwt.substr(first + 1, second - first - 1));
  for (char& c : payload) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (payload.size() % 4 != 0) payload.push_back('=');
  auto decoded = base::base64_decode(payload, 64 * 1024);
  if (!decoded) return std::nullopt;
  auto claims = base::parse_json(*decoded, {.max_depth = 16, .max_bytes = 64 * 1024});
  if (!claims) return std::nullopt;
  auto exp = base::json_field<std::int64_t>(*claims, "exp");
  if (!exp) return std::nullopt;
  return *exp * 1000;
}

bool codex_needs_refresh(const CodexTokens& tokens, std::int64_t now_ms) {
  if (tokens.access_token.empty()) return true;
  if (auto expiry = jwt_expiry_ms(tokens.access_token.reveal());
      expiry && *expiry - expiry_margin_ms <= now_ms)
    return true;
  return tokens.last_refresh_ms == 0 || now_ms - tokens.last_refresh_ms > refresh_every_ms;
}

std::string codex_token_url(const base::EnvLookup& env) {
  if (auto url = env_value(env, "CODEX_REFRESH_TOKEN_URL_OVERRIDE"); !url.empty()) return url;
  return "https://auth.openai.com/oauth/token";
}

std::shared_ptr<CodexCredentials> CodexCredentials::for_file(const std::filesystem::path& path,
                                                             std::string token_url,
                                                             transport::HttpClientOptions http) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<CodexCredentials>> shared;
  std::scoped_lock lock(mutex);
  const std::string key = path.string() + '\n' + token_url;
  if (auto existing = shared[key].lock()) return existing;
  auto made = std::make_shared<CodexCredentials>(path, std::move(token_url), std::move(http));
  shared[key] = made;
  return made;
}

asio::awaitable<Result<std::vector<transport::HttpHeader>>> CodexCredentials::headers(
    bool rejected) {
  auto executor = co_await asio::this_coro::executor;
  bool refreshed_here = false;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (refreshing_) {
        lock.unlock();
        // Another conversation is refreshing: its result lands in the file.
        asio::steady_timer wait(executor, std::chrono::milliseconds(25));
        co_await wait.async_wait(asio::as_tuple(asio::use_awaitable));
        rejected = false;  // the token that was refused is being replaced
        continue;
      }
    }
    AVA_CO_TRY(auto auth, read_codex_auth(path_));
    if (!auth.tokens) {
      co_return fail(ErrorCode::permission_denied,
                     fmt::format("{} holds no ChatGPT login: run `codex login`", path_.string()));
    }
    CodexTokens tokens = std::move(*auth.tokens);
    const bool due = rejected || codex_needs_refresh(tokens, base::unix_ms_now());
    if (due && !refreshed_here) {
      {
        std::scoped_lock lock(mutex_);
        if (refreshing_) continue;
        refreshing_ = true;
      }
      auto fresh = co_await refresh(tokens);
      {
        std::scoped_lock lock(mutex_);
        refreshing_ = false;
      }
      if (!fresh) co_return std::unexpected(std::move(fresh).error());
      tokens = std::move(*fresh);
      refreshed_here = true;
    }
    std::vector<transport::HttpHeader> out{
        {"authorization", "Bearer " + tokens.access_token.reveal()}};
    if (!tokens.account_id.empty()) out.push_back({"chatgpt-account-id", tokens.account_id});
    co_return out;
  }
}

asio::awaitable<Result<CodexTokens>> CodexCredentials::refresh(const CodexTokens& tokens) {
  if (tokens.refresh_token.empty()) {
    co_return fail(ErrorCode::permission_denied,
                   fmt::format("the Codex login in {} has no refresh token: run `codex login`",
                               path_.string()));
  }
  auto executor = co_await asio::this_coro::executor;
  AVA_CO_TRY(auto client, transport::HttpClient::create(executor, http_));
  const transport::HttpRequest request{
      .method = "POST",
      .url = token_url_,
      .headers = {{"content-type", "application/json"}, {"accept", "application/json"}},
      .body = json{{"client_id", codex_client_id},
                   {"grant_type", "refresh_token"},
                   {"refresh_token", tokens.refresh_token.reveal()},
                   {"scope", refresh_scope}}
                  .dump()};
  const transport::BodyHandler whole_body;
  auto reply = co_await client->send(request, whole_body);
  if (!reply) {
    co_return fail(reply.error().code, "cannot refresh the Codex login: " + reply.error().message);
  }
  if (reply->status == 400 || reply->status == 401) {
    co_return fail(ErrorCode::permission_denied,
                   fmt::format("the Codex login has expired or its refresh token was used "
                               "elsewhere ({}): run `codex login` again",
                               error_text(*reply)));
  }
  if (reply->status < 200 || reply->status >= 300) {
    co_return fail(ErrorCode::unavailable, "cannot refresh the Codex login: " + error_text(*reply));
  }
  auto answer = base::parse_json(reply->body, {.max_depth = 16, .max_bytes = 1024 * 1024});
  if (!answer || !answer->is_object())
    co_return fail(ErrorCode::protocol, "the token endpoint's answer is not a JSON object");
  CodexTokens fresh = tokens;
  auto take = [&](const char* name, base::Secret& into) {
    if (auto value = base::json_field<std::string>(*answer, name); value && !value->empty())
      into = base::Secret(std::move(*value));
  };
  take("access_token", fresh.access_token);
  take("refresh_token", fresh.refresh_token);
  take("id_token", fresh.id_token);
  if (fresh.access_token.reveal() == tokens.access_token.reveal())
    co_return fail(ErrorCode::protocol, "the token endpoint gave no new access token");
  fresh.last_refresh_ms = base::unix_ms_now();

  // Written back as Codex writes it, the file's other fields kept: Codex
  // and Ava then share the rotated refresh token.
  AVA_CO_TRY(auto document, read_document(path_));
  json& stored = document["tokens"];
  if (!stored.is_object()) stored = json::object();
  stored["access_token"] = fresh.access_token.reveal();
  stored["refresh_token"] = fresh.refresh_token.reveal();
  if (!fresh.id_token.empty()) stored["id_token"] = fresh.id_token.reveal();
  document["last_refresh"] = rfc3339_now();
  std::string text;
  try {
    text = document.dump(2) + "\n";
  } catch (const json::type_error&) {
    co_return fail(ErrorCode::parse, path_.string() + ": not valid UTF-8");
  }
  AVA_CO_TRY_VOID(base::write_private_file(path_, text));
  co_return fresh;
}

}  // namespace ava::llm
