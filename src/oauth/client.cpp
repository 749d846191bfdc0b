// OAuthClient: the credentials of one server, refreshed one at a time,
// renewed by an interactive sign-in when the server refuses them. Every
// change is stored through the generation fence of the CredentialStore.

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/base64.hpp"
#include "ava/base/json.hpp"
#include "ava/base/log.hpp"
#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;
using nlohmann::json;
using SystemClock = std::chrono::system_clock;
using Strand = asio::strand<asio::any_io_executor>;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::uint64_t never_loaded = ~std::uint64_t{0};

struct OAuthClient::State {
  State(Strand on, OAuthConfig settings) : strand(std::move(on)), config(std::move(settings)) {}

  Strand strand;
  OAuthConfig config;
  std::optional<OAuthCredentials> cached;
  std::uint64_t cached_generation = never_loaded;  // the fence `cached` was loaded under
  std::uint64_t cached_revision = never_loaded;    // the store's revision then
  std::uint64_t version = 0;                       // grows with every change of `cached`
  bool refreshing = false;
  bool login_running = false;
  Result<void> last_login;
  std::vector<asio::steady_timer*> waiters;     // for a refresh or a sign-in
  oauth::RedirectListener* listener = nullptr;  // of the running sign-in
  std::string resource_metadata_url;            // from the last challenge
  std::string refused_after_refresh;            // what a refresh after a 401 produced
  std::uint64_t sign_ins = 0;                   // numbers the attempts for the opener
  std::optional<Error> open_error;              // the running attempt's opener failed
  std::atomic<int> refreshes{0};
  std::atomic<int> logins{0};

  CredentialStore& store() const { return *config.store; }

  // Reloads when the store moved on (a sign-out, another process). The
  // generation is read before the credentials: an erase in between leaves
  // them under a fence that no longer holds, so they cannot be saved back.
  Result<void> sync() {
    AVA_TRY(const auto revision, store().revision(config.server_name));
    if (revision == cached_revision) return {};
    AVA_TRY(const auto generation, store().generation(config.server_name));
    AVA_TRY(cached, store().load(config.server_name));
    cached_generation = generation;
    cached_revision = revision;
    ++version;
    return {};
  }

  // The credentials in hand; a pointer to use before the next co_await.
  OAuthCredentials* credentials() {
    if (!cached) return nullptr;
    return &*cached;
  }

  // Empty without a token or once it expired.
  std::string header() const {
    if (!cached || cached->access_token.empty()) return {};
    if (cached->expires_at && SystemClock::now() >= *cached->expires_at) return {};
    return "Bearer " + cached->access_token;
  }

  void notify() {
    for (auto* waiter : waiters) waiter->cancel();
  }

  asio::awaitable<void> wait_change() {
    asio::steady_timer wake(strand, std::chrono::hours(1));
    waiters.push_back(&wake);
    co_await wake.async_wait(use_tuple);
    std::erase(waiters, &wake);
  }
};

namespace {

using StatePtr = std::shared_ptr<OAuthClient::State>;

Result<void> commit(OAuthClient::State& state, OAuthCredentials credentials,
                    std::uint64_t generation) {
  if (auto saved = state.store().save(state.config.server_name, credentials, generation); !saved) {
    if (saved.error().code == ErrorCode::conflict) {
      return fail(ErrorCode::cancelled,
                  fmt::format("the credentials of MCP server {} were removed meanwhile",
                              state.config.server_name));
    }
    return saved;
  }
  state.cached = std::move(credentials);
  state.cached_generation = generation;
  // What was just saved is what the store holds at its revision now (a
  // failed read only costs one load more).
  auto revision = state.store().revision(state.config.server_name);
  state.cached_revision = revision ? *revision : never_loaded;
  ++state.version;
  return {};
}

void apply(OAuthCredentials& credentials, const oauth::TokenAnswer& answer) {
  credentials.access_token = answer.access_token;
  if (!answer.refresh_token.empty()) credentials.refresh_token = answer.refresh_token;
  if (!answer.scope.empty()) credentials.scope = answer.scope;
  credentials.expires_at.reset();
  if (answer.expires_in) {
    credentials.expires_at = SystemClock::now() + std::chrono::seconds(*answer.expires_in);
  }
}

// Parameter lists are built outside the coroutines: g++ 12 mishandles
// braced lists inside them.
oauth::ClientChoice client_of(const OAuthCredentials& credentials) {
  return {credentials.client_id, credentials.client_secret, credentials.auth_method};
}

oauth::Params refresh_params(const OAuthCredentials& credentials) {
  oauth::Params params{{"grant_type", "refresh_token"},
                       {"refresh_token", credentials.refresh_token}};
  if (!credentials.resource.empty()) params.emplace_back("resource", credentials.resource);
  return params;
}

oauth::Params authorize_params(const oauth::ClientChoice& client, const std::string& verifier,
                               const std::string& redirect_uri, const std::string& state,
                               const std::string& scope, const std::string& resource) {
  oauth::Params query{{"response_type", "code"},
                      {"client_id", client.client_id},
                      {"code_challenge", base::base64url_encode(oauth::sha256(verifier))},
                      {"code_challenge_method", "S256"},
                      {"redirect_uri", redirect_uri},
                      {"state", state}};
  if (!scope.empty()) query.emplace_back("scope", scope);
  if (!resource.empty()) query.emplace_back("resource", resource);
  return query;
}

oauth::Params code_params(const std::string& code, const std::string& verifier,
                          const std::string& redirect_uri, const std::string& resource) {
  oauth::Params params{{"grant_type", "authorization_code"},
                       {"code", code},
                       {"code_verifier", verifier},
                       {"redirect_uri", redirect_uri}};
  if (!resource.empty()) params.emplace_back("resource", resource);
  return params;
}

// One refresh; the caller set state.refreshing.
asio::awaitable<Result<void>> refresh(StatePtr state) {
  const auto generation = state->cached_generation;
  const auto version = state->version;
  const auto* current = state->credentials();
  if (current == nullptr) co_return fail(ErrorCode::cancelled, "signed out before the refresh");
  auto credentials = *current;
  auto answer = co_await oauth::token_request(state->config.http, credentials.server_metadata,
                                              client_of(credentials), refresh_params(credentials));
  AVA_CO_TRY(const auto tokens, std::move(answer));
  if (state->version != version) {
    co_return fail(ErrorCode::cancelled, "the credentials changed during the refresh");
  }
  apply(credentials, tokens);
  AVA_CO_TRY_VOID(commit(*state, std::move(credentials), generation));
  ++state->refreshes;
  co_return Result<void>{};
}

asio::awaitable<Result<void>> refresh_once(StatePtr state) {
  while (state->refreshing) co_await state->wait_change();
  state->refreshing = true;
  auto done = co_await refresh(state);
  state->refreshing = false;
  state->notify();
  co_return done;
}

bool expiring(const OAuthCredentials& credentials, std::chrono::seconds margin) {
  const auto& expiry = credentials.expires_at;
  return expiry && SystemClock::now() + margin >= *expiry;
}

// What a sign-in produced, saved under the fence read when it began.
Result<void> keep_sign_in(OAuthClient::State& state, const oauth::ClientChoice& client,
                          std::string scope, const oauth::Discovery& found,
                          const oauth::TokenAnswer& tokens, std::uint64_t generation) {
  OAuthCredentials credentials;
  credentials.client_id = client.client_id;
  credentials.client_secret = client.client_secret;
  credentials.auth_method = client.auth_method;
  credentials.scope = std::move(scope);
  credentials.resource = found.resource;
  credentials.resource_metadata = found.resource_metadata;
  credentials.server_metadata = found.server_metadata;
  apply(credentials, tokens);
  AVA_TRY_VOID(commit(state, std::move(credentials), generation));
  ++state.logins;
  return {};
}

bool needs_person(const OAuthConfig& config) { return config.grant == Grant::authorization_code; }

asio::awaitable<Result<void>> login_on_strand(StatePtr state, std::string scope);

asio::awaitable<Result<std::string>> authorization_on_strand(StatePtr state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  while (state->refreshing) co_await state->wait_change();
  AVA_CO_TRY_VOID(state->sync());
  const auto* current = state->credentials();
  if (current == nullptr || current->access_token.empty()) co_return std::string();
  if (!expiring(*current, state->config.refresh_margin)) co_return state->header();
  if (!needs_person(state->config)) {
    // A new token before this one runs out; on failure the old one serves
    // while it lasts.
    if (auto renewed = co_await login_on_strand(state, current->scope); !renewed) {
      spdlog::info("mcp {}: renewing the token failed: {}", state->config.server_name,
                   renewed.error().message);
    }
    co_return state->header();
  }
  // Without a refresh token it serves until it expires; then the 401 signs in.
  if (current->refresh_token.empty()) co_return state->header();
  auto refreshed = co_await refresh_once(state);
  if (!refreshed) {
    spdlog::info("mcp {}: token refresh failed: {}", state->config.server_name,
                 refreshed.error().message);
    if (refreshed.error().code == ErrorCode::cancelled)
      co_return std::unexpected(refreshed.error());
    co_return state->header();  // valid a little longer, or empty: a 401 signs in
  }
  co_return state->header();
}

// A grant without a person. The credentials go only to the authorization
// server they are configured (or were first used) for.
asio::awaitable<Result<void>> machine_sign_in(StatePtr state, std::uint64_t generation,
                                              oauth::Discovery found, std::string scope) {
  const auto& config = state->config;
  const auto issuer = base::json_value(found.server_metadata, "issuer", "");
  std::string expected = config.issuer;
  if (const auto* kept = state->credentials(); expected.empty() && kept != nullptr) {
    expected = base::json_value(kept->server_metadata, "issuer", "");
  }
  if (!expected.empty() && issuer != expected) {
    co_return fail(
        ErrorCode::permission_denied,
        fmt::format("MCP server {} names authorization server {}, but its client "
                    "credentials are for {}; nothing was sent",
                    config.server_name, base::redact_url(issuer), base::redact_url(expected)));
  }
  if (!config.scope.empty()) scope = oauth::scope_union(config.scope, scope);
  auto answer = co_await oauth::machine_grant(config, found, scope);
  AVA_CO_TRY(auto tokens, std::move(answer));
  // Running the grant again is the refresh: no refresh token is kept (using
  // one would need the client's key, which stays in the configuration).
  tokens.refresh_token.clear();
  // The key and the secret stay in the configuration.
  const oauth::ClientChoice client{
      config.client_id,
      "",
      config.private_key_pem.empty() ? config.auth_method : "private_key_jwt",
      {},
      {}};
  co_return keep_sign_in(*state, client, std::move(scope), found, tokens, generation);
}

// The interactive sign-in: discovery, registration, the browser, the code.
asio::awaitable<Result<void>> sign_in(StatePtr state, std::string scope) {
  // The fence is read first: a sign-out from here on wins.
  AVA_CO_TRY(const auto generation, state->store().generation(state->config.server_name));
  const auto& config = state->config;
  auto found_or =
      co_await oauth::discover(config.http, config.server_url, state->resource_metadata_url);
  AVA_CO_TRY(auto found, std::move(found_or));
  if (scope.empty()) scope = found.scopes_supported;
  if (!needs_person(config)) {
    co_return co_await machine_sign_in(state, generation, std::move(found), std::move(scope));
  }
  AVA_CO_TRY(auto listener, config.relay
                                ? oauth::RedirectListener::relayed(state->strand, config.relay)
                                : oauth::RedirectListener::open(state->strand));
  const auto redirect_uri = listener->redirect_uri();

  oauth::ClientChoice client;
  const auto issuer = base::json_value(found.server_metadata, "issuer", "");
  const auto* kept = state->credentials();
  if (config.client_id.empty() && kept != nullptr && !kept->client_id.empty() &&
      base::json_value(kept->server_metadata, "issuer", "") == issuer) {
    client = client_of(*kept);
  } else {
    auto chosen = co_await oauth::choose_client(config, found, redirect_uri, scope);
    AVA_CO_TRY(client, std::move(chosen));
  }

  // Discovery checked it; checked again right where it becomes the page a
  // person is sent to, so nothing but an https (or loopback) URL is shown.
  const auto endpoint = base::json_value(found.server_metadata, "authorization_endpoint", "");
  AVA_CO_TRY_VOID(oauth::check_endpoint("authorization_endpoint", endpoint));
  const auto verifier = oauth::random_token(32);
  const auto expected_state = oauth::random_token(16);
  const auto url = oauth::with_query(
      endpoint,
      authorize_params(client, verifier, redirect_uri, expected_state, scope, found.resource));

  state->listener = listener.get();
  asio::steady_timer deadline(state->strand, config.login_timeout);
  deadline.async_wait([state, raw = listener.get()](boost::system::error_code error) {
    if (!error && state->listener == raw) raw->cancel();
  });
  // A page that cannot be opened ends the attempt at once, not at the
  // deadline.
  auto open = [](StatePtr owner, std::string link, std::uint64_t attempt) -> asio::awaitable<void> {
    co_await asio::this_coro::throw_if_cancelled(false);
    if (auto opened = co_await owner->config.open_url(std::move(link)); !opened) {
      spdlog::warn("mcp {}: could not open the sign-in page: {}", owner->config.server_name,
                   opened.error().message);
      if (owner->sign_ins == attempt && owner->listener != nullptr) {
        owner->open_error = opened.error();
        owner->listener->cancel();
      }
    }
  };
  // Its state and PKCE challenge are the sign-in: never in a log.
  spdlog::info("mcp {}: sign in at {}", config.server_name, base::redact_url(url));
  state->open_error.reset();
  asio::co_spawn(state->strand, open(state, url, ++state->sign_ins), asio::detached);
  auto received = co_await listener->wait(expected_state);
  state->listener = nullptr;
  deadline.cancel();
  if (!received && received.error().code == ErrorCode::cancelled) {
    auto now = state->store().generation(config.server_name);
    if (!now || *now != generation) {
      co_return fail(
          ErrorCode::cancelled,
          fmt::format("signed out of MCP server {} during the sign-in", config.server_name));
    }
    if (const auto open_failed = state->open_error; open_failed) {
      co_return fail(open_failed->code,
                     fmt::format("the sign-in page of MCP server {} could not be opened: {}",
                                 config.server_name, open_failed->message));
    }
    co_return fail(ErrorCode::timeout, fmt::format("the sign-in for MCP server {} did not complete",
                                                   config.server_name));
  }
  AVA_CO_TRY(const auto params, std::move(received));
  if (const auto refused = oauth::param(params, "error"); !refused.empty()) {
    co_return fail(ErrorCode::permission_denied,
                   fmt::format("the authorization server refused the sign-in: {}", refused));
  }
  // RFC 9207: a server that names itself must be the one asked.
  if (const auto iss = oauth::param(params, "iss"); !iss.empty() && iss != issuer) {
    co_return fail(ErrorCode::protocol, "the sign-in answer came from another issuer");
  }
  auto exchange = code_params(oauth::param(params, "code"), verifier, redirect_uri, found.resource);
  auto answer = co_await oauth::token_request(config.http, found.server_metadata, client,
                                              std::move(exchange));
  AVA_CO_TRY(const auto tokens, std::move(answer));
  co_return keep_sign_in(*state, client, std::move(scope), found, tokens, generation);
}

// One sign-in at a time; a second caller waits for the first's outcome.
asio::awaitable<Result<void>> login_on_strand(StatePtr state, std::string scope) {
  co_await asio::this_coro::throw_if_cancelled(false);
  if (state->login_running) {
    while (state->login_running) co_await state->wait_change();
    co_return state->last_login;
  }
  state->login_running = true;
  auto done = co_await sign_in(state, std::move(scope));
  if (!done) {
    spdlog::info("mcp {}: sign-in failed: {}", state->config.server_name, done.error().message);
  }
  state->last_login = done;
  state->login_running = false;
  state->notify();
  co_return done;
}

asio::awaitable<Result<void>> challenged_on_strand(StatePtr state, int status, std::string header,
                                                   std::string sent) {
  co_await asio::this_coro::throw_if_cancelled(false);
  const auto challenge = oauth::parse_challenge(header);
  const bool step_up = status == 403 && challenge.error == "insufficient_scope";
  if (status == 403 && !step_up) {
    co_return fail(
        ErrorCode::permission_denied,
        fmt::format("MCP server {} refused access (HTTP 403{}{})", state->config.server_name,
                    challenge.error.empty() ? "" : ": ", challenge.error));
  }
  if (!challenge.resource_metadata.empty()) {
    state->resource_metadata_url = challenge.resource_metadata;
  }
  while (state->refreshing) co_await state->wait_change();
  AVA_CO_TRY_VOID(state->sync());
  // Someone renewed the credentials since this request was sent.
  if (const auto now = state->header(); !now.empty() && now != sent) co_return Result<void>{};
  const auto* current = state->credentials();
  if (!needs_person(state->config)) {
    // Nobody to wait for: the grant runs now, with the scope asked for.
    std::string scope = challenge.scope;
    if (step_up && current != nullptr) scope = oauth::scope_union(current->scope, scope);
    co_return co_await login_on_strand(state, std::move(scope));
  }
  // A 401 first tries a refresh, unless the token refused is already the
  // product of one: then only a sign-in helps.
  if (!step_up && current != nullptr && !current->refresh_token.empty() &&
      !current->access_token.empty() && sent != state->refused_after_refresh) {
    if (auto refreshed = co_await refresh_once(state); refreshed) {
      state->refused_after_refresh = state->header();
      co_return Result<void>{};
    }
  }
  std::string scope = challenge.scope;
  current = state->credentials();  // the refresh above may have replaced them
  if (step_up && current != nullptr) scope = oauth::scope_union(current->scope, scope);
  if (state->config.wait_for_login) co_return co_await login_on_strand(state, std::move(scope));
  if (!state->config.sign_in_hint.empty()) {
    co_return fail(ErrorCode::permission_denied,
                   fmt::format("MCP server {} needs a sign-in: {}", state->config.server_name,
                               state->config.sign_in_hint));
  }
  if (!state->login_running) {
    asio::co_spawn(state->strand, login_on_strand(state, std::move(scope)), asio::detached);
  }
  co_return fail(ErrorCode::permission_denied,
                 fmt::format("MCP server {} needs a sign-in: it was opened in the browser; "
                             "try again once signed in",
                             state->config.server_name));
}

}  // namespace

std::shared_ptr<OAuthClient> OAuthClient::create(const asio::any_io_executor& executor,
                                                 OAuthConfig config) {
  return std::shared_ptr<OAuthClient>(new OAuthClient(executor, std::move(config)));
}

OAuthClient::OAuthClient(const asio::any_io_executor& executor, OAuthConfig config)
    : config_(config),
      state_(std::make_shared<State>(asio::make_strand(executor), std::move(config))) {}

OAuthClient::~OAuthClient() {
  asio::post(state_->strand, [state = state_] {
    if (state->listener != nullptr) state->listener->cancel();
  });
}

asio::awaitable<Result<std::string>> OAuthClient::authorization() {
  auto state = state_;
  co_return co_await asio::co_spawn(state->strand, authorization_on_strand(state),
                                    asio::use_awaitable);
}

asio::awaitable<Result<void>> OAuthClient::challenged(int status, std::string www_authenticate,
                                                      std::string sent) {
  auto state = state_;
  co_return co_await asio::co_spawn(
      state->strand,
      challenged_on_strand(state, status, std::move(www_authenticate), std::move(sent)),
      asio::use_awaitable);
}

asio::awaitable<Result<void>> OAuthClient::login(std::string scope) {
  auto state = state_;
  co_return co_await asio::co_spawn(state->strand, login_on_strand(state, std::move(scope)),
                                    asio::use_awaitable);
}

Result<void> OAuthClient::sign_out() {
  // The store's generation moves first: whatever is in flight can no longer
  // save. Then the cached copy goes and a running sign-in stops listening.
  AVA_TRY_VOID(config_.store->erase(config_.server_name));
  asio::post(state_->strand, [state = state_] {
    state->cached.reset();
    state->cached_generation = never_loaded;
    state->cached_revision = never_loaded;
    ++state->version;
    if (state->listener != nullptr) state->listener->cancel();
  });
  return {};
}

int OAuthClient::refreshes() const { return state_->refreshes.load(); }
int OAuthClient::logins() const { return state_->logins.load(); }

}  // namespace ava::oauth
