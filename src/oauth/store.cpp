// Credentials as JSON, the in-memory store, and the two ways to open the
// sign-in page.

#include <fmt/format.h>

#include "ava/base/json.hpp"
#include "ava/base/log.hpp"
#include "ava/base/open_url.hpp"
#include "ava/transport/url.hpp"
#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;
using nlohmann::json;

json OAuthCredentials::to_json() const {
  json out = {{"client_id", client_id},
              {"client_secret", client_secret},
              {"auth_method", auth_method},
              {"access_token", access_token},
              {"refresh_token", refresh_token},
              {"scope", scope},
              {"resource", resource},
              {"resource_metadata", resource_metadata},
              {"server_metadata", server_metadata}};
  if (expires_at) {
    out["expires_at"] =
        std::chrono::duration_cast<std::chrono::seconds>(expires_at->time_since_epoch()).count();
  }
  return out;
}

Result<OAuthCredentials> OAuthCredentials::from_json(const json& value) {
  if (!value.is_object()) return fail(ErrorCode::parse, "OAuth credentials are not an object");
  OAuthCredentials out;
  out.client_id = base::json_value(value, "client_id", "");
  out.client_secret = base::json_value(value, "client_secret", "");
  out.auth_method = base::json_value(value, "auth_method", "");
  out.access_token = base::json_value(value, "access_token", "");
  out.refresh_token = base::json_value(value, "refresh_token", "");
  out.scope = base::json_value(value, "scope", "");
  out.resource = base::json_value(value, "resource", "");
  out.resource_metadata = base::json_value(value, "resource_metadata", json());
  out.server_metadata = base::json_value(value, "server_metadata", json());
  // Seconds since the epoch; bounded so the conversion to the clock's
  // int64 nanoseconds cannot overflow (they end in the year 2262).
  constexpr std::int64_t latest =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::duration::max())
          .count();
  if (const auto at = base::json_field<std::int64_t>(value, "expires_at");
      at && *at >= 0 && *at <= latest) {
    out.expires_at = std::chrono::system_clock::time_point(std::chrono::seconds(*at));
  }
  return out;
}

Result<std::optional<OAuthCredentials>> MemoryCredentialStore::load(std::string_view server) {
  const std::scoped_lock lock(mutex_);
  auto found = entries_.find(server);
  if (found == entries_.end()) return std::optional<OAuthCredentials>();
  return found->second.credentials;
}

Result<std::uint64_t> MemoryCredentialStore::generation(std::string_view server) {
  const std::scoped_lock lock(mutex_);
  auto found = entries_.find(server);
  return found == entries_.end() ? 0 : found->second.generation;
}

Result<void> MemoryCredentialStore::save(std::string_view server,
                                         const OAuthCredentials& credentials,
                                         std::uint64_t generation) {
  const std::scoped_lock lock(mutex_);
  auto& entry = entries_[std::string(server)];
  if (entry.generation != generation) {
    return fail(ErrorCode::conflict,
                fmt::format("credentials of {} were removed since this flow began", server));
  }
  entry.credentials = credentials;
  return {};
}

Result<void> MemoryCredentialStore::erase(std::string_view server) {
  const std::scoped_lock lock(mutex_);
  auto& entry = entries_[std::string(server)];
  entry.credentials.reset();
  ++entry.generation;
  return {};
}

UrlOpener browser_opener() {
  // base::open_url refuses anything but http(s), needs a display and reaps
  // the opener.
  return [](std::string url) -> asio::awaitable<Result<void>> { co_return base::open_url(url); };
}

UrlOpener http_get_opener(const transport::HttpClientOptions& options) {
  return [options](std::string url) -> asio::awaitable<Result<void>> {
    for (int hop = 0; hop < 10; ++hop) {
      transport::HttpRequest request{.method = "GET", .url = url, .headers = {}, .body = {}};
      AVA_CO_TRY(auto response, co_await oauth::http_send(options, std::move(request)));
      if (response.status < 300 || response.status >= 400) {
        if (response.status >= 200 && response.status < 300) co_return Result<void>{};
        co_return fail(ErrorCode::protocol,
                       fmt::format("{} answered HTTP {}", base::redact_url(url), response.status));
      }
      auto location = response.header("location");
      if (location.starts_with("/")) {
        AVA_CO_TRY(auto base, transport::Url::parse(url));
        location.insert(0, base.origin());
      }
      if (location.empty()) co_return fail(ErrorCode::protocol, "a redirect without Location");
      url = std::move(location);
    }
    co_return fail(ErrorCode::limit_exceeded, "more than 10 redirects");
  };
}

}  // namespace ava::oauth
