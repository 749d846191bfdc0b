#pragma once

// Pieces of the OAuth client shared by its source files; not public API.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/base/url_encoding.hpp"
#include "ava/oauth/oauth.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::oauth {

using Params = base::QueryParams;

// --- encodings (util.cpp; percent-coding and forms are base/url_encoding) ---
std::string sha256(std::string_view bytes);
std::string random_token(std::size_t bytes);  // base64url of CSPRNG bytes
// URL with `params` appended to its query.
std::string with_query(std::string_view url, const Params& params);

// The parameters of the Bearer challenge in a WWW-Authenticate value.
struct Challenge {
  std::string error;
  std::string scope;
  std::string resource_metadata;
};
Challenge parse_challenge(std::string_view header);

// Space-separated scope lists: the union keeps the first's order.
std::string scope_union(std::string_view a, std::string_view b);

// Every URL taken from a peer's metadata (endpoints, the authorization
// server, the resource metadata location) must be https, or http to a
// loopback host (127.0.0.0/8, ::1, localhost); javascript:, data:, file:
// and plain http to another host are refused with an error naming `field`.
Result<void> check_endpoint(std::string_view field, std::string_view url);

// How large and deep an OAuth document (metadata, registration or token
// answer) may be.
inline constexpr std::size_t max_document_bytes = std::size_t{1024} * 1024;
Result<nlohmann::json> parse_document(std::string_view text);

// --- HTTP (oauth_util.cpp) ---
boost::asio::awaitable<Result<transport::HttpResponse>> http_send(
    transport::HttpClientOptions options, transport::HttpRequest request);
// A GET answered 200 with a JSON object; not_found for 4xx (try the next
// well-known location), other failures as they are.
boost::asio::awaitable<Result<nlohmann::json>> get_json(transport::HttpClientOptions options,
                                                        std::string url);

// --- discovery (oauth_discovery.cpp) ---
struct Discovery {
  nlohmann::json resource_metadata;  // null for a 2025-03-26 server without one
  std::string resource;              // empty then too
  nlohmann::json server_metadata;    // endpoints guessed for a legacy server without metadata
  std::string scopes_supported;      // from the resource metadata, space-separated
};
boost::asio::awaitable<Result<Discovery>> discover(transport::HttpClientOptions options,
                                                   std::string server_url,
                                                   std::string resource_metadata_url);
// "a/b" is covered by resource "a" (same origin, path prefix at a '/').
bool resource_covers(std::string_view resource, std::string_view server_url);

// --- registration and tokens (oauth_flow.cpp) ---
struct ClientChoice {
  std::string client_id;
  std::string client_secret;
  std::string auth_method;        // none, client_secret_basic, client_secret_post, private_key_jwt
  std::string private_key_pem;    // private_key_jwt
  std::string signing_algorithm;  // private_key_jwt; empty: the key's own
};
// RFC 8414 defaults: client_secret_basic unless the metadata lists only
// client_secret_post; "none" without a secret.
std::string pick_auth_method(const nlohmann::json& metadata, bool has_secret);
// Pre-registered, a client ID metadata document, or dynamic registration.
boost::asio::awaitable<Result<ClientChoice>> choose_client(const OAuthConfig& config,
                                                           const Discovery& found,
                                                           std::string redirect_uri,
                                                           std::string scope);
// expires_in of a token answer in seconds: a non-negative integer or a
// numeric string, at most max_expires_in (a bigger value is cut to it);
// nullopt when absent or unusable (then the token has no known expiry).
inline constexpr long long max_expires_in = 365LL * 24 * 3600;
std::optional<long long> parse_expires_in(const nlohmann::json& answer);

struct TokenAnswer {
  std::string access_token;
  std::string refresh_token;
  std::string scope;
  std::optional<long long> expires_in;
};
// A form POST to a token endpoint (`field` names it in errors),
// authenticated as the client's method says; a private_key_jwt assertion
// is made for `audience`. The answer's JSON object when it is 200;
// protocol error with the server's `error` code otherwise.
boost::asio::awaitable<Result<nlohmann::json>> post_token_form(transport::HttpClientOptions options,
                                                               std::string endpoint,
                                                               std::string field,
                                                               ClientChoice client, Params params,
                                                               std::string audience);
// A token request (grant and its parameters in `params`) at the server's
// token endpoint, answered with a Bearer token.
boost::asio::awaitable<Result<TokenAnswer>> token_request(transport::HttpClientOptions options,
                                                          nlohmann::json server_metadata,
                                                          ClientChoice client, Params params);

// --- grants without a person (machine.cpp) ---
// client_credentials or cross_app_access as `config.grant` says, against
// the discovered authorization server, for `scope` (may be empty).
boost::asio::awaitable<Result<TokenAnswer>> machine_grant(const OAuthConfig& config,
                                                          const Discovery& found,
                                                          std::string scope);

// --- loopback redirect (oauth_redirect.cpp) ---
// Listens on 127.0.0.1 (ephemeral port) for the browser's redirect to
// /callback and answers it with a short page.
class RedirectListener {
 public:
  // `read_timeout` bounds each accepted connection (reading the request,
  // writing the answer), so one that idles cannot stall the sign-in.
  static Result<std::unique_ptr<RedirectListener>> open(
      const boost::asio::any_io_executor& ex,
      std::chrono::milliseconds read_timeout = std::chrono::seconds(10));
  // The browser is sent to `relay`'s URI instead, and the callback's
  // query comes through RedirectRelay::deliver (relay.hpp).
  static Result<std::unique_ptr<RedirectListener>> relayed(const boost::asio::any_io_executor& ex,
                                                           std::shared_ptr<RedirectRelay> relay);
  virtual ~RedirectListener() = default;
  RedirectListener() = default;
  RedirectListener(const RedirectListener&) = delete;
  RedirectListener& operator=(const RedirectListener&) = delete;

  virtual std::string redirect_uri() const = 0;
  // The query of the first request to /callback carrying `state`
  // (other requests are answered 404 and ignored). Cancellable.
  virtual boost::asio::awaitable<Result<Params>> wait(std::string state) = 0;
  // Stops listening and closes the connection being read; a wait() ends
  // with ErrorCode::cancelled. On the listener's executor.
  virtual void cancel() = 0;
};

std::string param(const Params& params, std::string_view name);

}  // namespace ava::oauth
