#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/oauth/relay.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::oauth {

// What Ava keeps per server after a sign-in: the client registration, the
// tokens (expiry as an absolute time) and the discovery documents they were
// obtained with, so a refresh needs no discovery.
struct OAuthCredentials {
  std::string client_id;
  std::string client_secret;  // empty for public clients
  std::string auth_method;    // token endpoint: none, client_secret_post, client_secret_basic
  std::string access_token;
  std::string refresh_token;
  std::string scope;  // granted (or requested when the server did not say)
  std::optional<std::chrono::system_clock::time_point> expires_at;
  std::string resource;                                 // RFC 8707 resource indicator
  nlohmann::json resource_metadata = nlohmann::json();  // RFC 9728, validated
  nlohmann::json server_metadata = nlohmann::json();    // RFC 8414 / OIDC, validated

  nlohmann::json to_json() const;
  static Result<OAuthCredentials> from_json(const nlohmann::json& value);
};

// Where credentials live, keyed by server name. Implementations must be
// thread-safe. The generation is the sign-out fence: erase() increments it,
// and save() stores only while the generation is still the one the caller
// read before starting its flow, so a login callback or a refresh that was
// in flight when the user signed out (or removed the server) cannot bring
// the credentials back. A server never seen has generation 0.
class CredentialStore {
 public:
  CredentialStore() = default;
  virtual ~CredentialStore() = default;
  CredentialStore(const CredentialStore&) = delete;
  CredentialStore& operator=(const CredentialStore&) = delete;

  virtual Result<std::optional<OAuthCredentials>> load(std::string_view server) = 0;
  virtual Result<std::uint64_t> generation(std::string_view server) = 0;
  // ErrorCode::conflict when the generation moved on since `generation`.
  virtual Result<void> save(std::string_view server, const OAuthCredentials& credentials,
                            std::uint64_t generation) = 0;
  // Removes the credentials (if any) and increments the generation.
  virtual Result<void> erase(std::string_view server) = 0;
  // Moves on with every save and erase, so a client sharing the store with
  // other processes (a sign-in by `ava mcp login` while the backend runs)
  // knows when to load again. A store only this process writes may leave
  // it to the generation.
  virtual Result<std::uint64_t> revision(std::string_view server) { return generation(server); }
};

// For tests and for `ava mcp conformance-client`: nothing outlives the process.
class MemoryCredentialStore final : public CredentialStore {
 public:
  Result<std::optional<OAuthCredentials>> load(std::string_view server) override;
  Result<std::uint64_t> generation(std::string_view server) override;
  Result<void> save(std::string_view server, const OAuthCredentials& credentials,
                    std::uint64_t generation) override;
  Result<void> erase(std::string_view server) override;

 private:
  struct Entry {
    std::optional<OAuthCredentials> credentials;
    std::uint64_t generation = 0;
  };
  std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;
};

// "Open the login URL": a browser for people, a plain GET that follows
// redirects (to the loopback listener) for automated authorization servers.
// Returns once the URL was handed over; the code arrives at the listener.
using UrlOpener = std::function<boost::asio::awaitable<Result<void>>(std::string url)>;
// base::open_url: http(s) only, with a display, detached and reaped.
UrlOpener browser_opener();
UrlOpener http_get_opener(const transport::HttpClientOptions& options);

// How a server's tokens are obtained. authorization_code: a person signs
// in through the browser. The others need nobody (docs/mcp.md#machine-to-
// machine-and-enterprise-sign-in): a 401 or an expiring token just runs the
// grant again.
enum class Grant {
  authorization_code,
  client_credentials,  // OAuth 2.1 §4.2: the client's own credentials
  cross_app_access,    // SEP-990: an IdP's ID token -> ID-JAG -> access token
};
std::string_view to_string(Grant grant);
// "authorization_code" (or empty), "client_credentials", "cross_app_access".
Result<Grant> parse_grant(std::string_view text);

// Cross-app access (SEP-990): the enterprise identity provider that trades
// the user's ID token for an identity assertion grant (RFC 8693).
struct IdentityProvider {
  std::string token_endpoint;  // https (or loopback http)
  std::string client_id;       // Ava's client at the IdP
  std::string client_secret;   // empty: client_id in the body
  // The user's current ID token (e.g. read from the file an SSO tool keeps
  // fresh); asked for at every exchange, never stored by Ava.
  std::function<Result<std::string>()> id_token;
};

struct OAuthConfig {
  std::string server_name;  // key in the credential store
  std::string server_url;   // the MCP endpoint
  // A pre-registered client; empty: a client ID metadata document when
  // client_metadata_url is set and the server supports it, else dynamic
  // registration (RFC 7591).
  std::string client_id;
  std::string client_secret;
  std::string auth_method;          // empty: chosen from the server's metadata
  std::string client_metadata_url;  // an https URL serving the client's metadata
  std::string client_name = "Ava";
  Grant grant = Grant::authorization_code;
  // private_key_jwt (RFC 7523 §2.2): with a key, the client authenticates
  // at the token endpoint with a JWT it signs instead of a secret.
  std::string private_key_pem;
  std::string signing_algorithm;  // empty: the key's own (jwt.hpp)
  std::string scope;              // machine grants: asked for; empty: as discovered
  // The authorization server (issuer) the client credentials belong to.
  // Empty: the first one that issued a token, kept with the credentials.
  // Machine grants refuse any other, so a server cannot send Ava's secret,
  // key assertion or ID token to an authorization server of its choosing.
  std::string issuer;
  IdentityProvider identity_provider;  // cross_app_access
  std::shared_ptr<CredentialStore> store;
  UrlOpener open_url;
  // Set: the browser's redirect goes to this relay's URI, on the machine of
  // a client that delivers it here (relay.hpp), instead of a loopback
  // listener of this process.
  std::shared_ptr<RedirectRelay> relay;
  // How long the loopback listener waits for the browser's redirect.
  std::chrono::milliseconds login_timeout{300'000};
  // True: a 401 runs the sign-in and the request waits for it (CLI, tests).
  // False: the sign-in starts in the background and the request fails at
  // once with permission_denied saying so (an agent's tool call).
  bool wait_for_login = true;
  // Not empty: with wait_for_login false, a 401 that needs a person starts
  // no sign-in here; the request fails with this hint (e.g. "run `ava mcp
  // login NAME`"), for processes that have no browser to offer.
  std::string sign_in_hint;
  // A token this close to its expiry is refreshed before it is used.
  std::chrono::seconds refresh_margin{60};
  transport::HttpClientOptions http;
};

// OAuth 2.1 for one Streamable HTTP server, after the MCP authorization
// spec (2025-11-25, with the 2025-06-18 and 2025-03-26 fallbacks):
// protected resource metadata (RFC 9728) from WWW-Authenticate or the
// well-known URIs, authorization server metadata (RFC 8414, then OpenID
// Connect discovery), client registration, authorization code with PKCE
// S256 and the resource parameter (RFC 8707) through a loopback redirect
// listener, refresh (one at a time), scope step-up on 403
// insufficient_scope. Thread-safe: its own strand.
class OAuthClient : public std::enable_shared_from_this<OAuthClient> {
 public:
  static std::shared_ptr<OAuthClient> create(const boost::asio::any_io_executor& executor,
                                             OAuthConfig config);
  ~OAuthClient();
  OAuthClient(const OAuthClient&) = delete;
  OAuthClient& operator=(const OAuthClient&) = delete;

  // The Authorization header value for the next request ("Bearer ..."),
  // refreshed first when it is about to expire; empty without credentials.
  boost::asio::awaitable<Result<std::string>> authorization();
  // The server answered 401 or 403 to a request sent with `sent` as its
  // Authorization value. Success: credentials changed, send again.
  boost::asio::awaitable<Result<void>> challenged(int status, std::string www_authenticate,
                                                  std::string sent);
  // An interactive sign-in now, for `scope` (empty: as discovered).
  boost::asio::awaitable<Result<void>> login(std::string scope);
  // Forgets the credentials and ends a running sign-in; nothing in flight
  // can bring them back (the store's generation fence).
  Result<void> sign_out();

  const OAuthConfig& config() const { return config_; }
  // How many times a token was refreshed / a sign-in completed.
  int refreshes() const;
  int logins() const;

  struct State;

 private:
  OAuthClient(const boost::asio::any_io_executor& executor, OAuthConfig config);

  OAuthConfig config_;
  std::shared_ptr<State> state_;
};

}  // namespace ava::oauth
