// Grants that need no person: client credentials (OAuth 2.1 §4.2, MCP's
// SEP-1046) and cross-app access (SEP-990: RFC 8693 token exchange at the
// enterprise IdP, then the RFC 7523 JWT bearer grant at the server's
// authorization server).

#include <fmt/format.h>

#include "ava/base/json.hpp"
#include "ava/base/log.hpp"
#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr const char* token_exchange = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr const char* jwt_bearer = "urn:ietf:params:oauth:grant-type:jwt-bearer";
constexpr const char* id_token_type = "urn:ietf:params:oauth:token-type:id_token";
constexpr const char* id_jag_type = "urn:ietf:params:oauth:token-type:id-jag";

// The configured client at the authorization server: a key makes it
// private_key_jwt, else the secret goes as the metadata prefers.
ClientChoice configured_client(const OAuthConfig& config, const json& metadata) {
  ClientChoice client{config.client_id, config.client_secret, config.auth_method, {}, {}};
  if (!config.private_key_pem.empty()) {
    client.auth_method = "private_key_jwt";
    client.private_key_pem = config.private_key_pem;
    client.signing_algorithm = config.signing_algorithm;
  } else if (client.auth_method.empty()) {
    client.auth_method = pick_auth_method(metadata, !client.client_secret.empty());
  }
  return client;
}

// Built outside the coroutines (g++ 12 and braced lists in them).
Params client_credentials_params(const std::string& scope, const std::string& resource) {
  Params params{{"grant_type", "client_credentials"}};
  if (!scope.empty()) params.emplace_back("scope", scope);
  if (!resource.empty()) params.emplace_back("resource", resource);
  return params;
}

Params exchange_params(const std::string& id_token, const std::string& audience,
                       const std::string& resource, const std::string& scope) {
  Params params{{"grant_type", token_exchange}, {"requested_token_type", id_jag_type},
                {"audience", audience},         {"resource", resource},
                {"subject_token", id_token},    {"subject_token_type", id_token_type}};
  if (!scope.empty()) params.emplace_back("scope", scope);
  return params;
}

Params bearer_params(const std::string& assertion, const std::string& scope,
                     const std::string& resource) {
  Params params{{"grant_type", jwt_bearer}, {"assertion", assertion}};
  if (!scope.empty()) params.emplace_back("scope", scope);
  if (!resource.empty()) params.emplace_back("resource", resource);
  return params;
}

Result<std::string> identity_token(const IdentityProvider& provider) {
  if (!provider.id_token) {
    return fail(ErrorCode::invalid_argument, "cross-app access needs the user's ID token");
  }
  AVA_TRY(auto token, provider.id_token());
  if (token.empty() || token.find_first_of(" \t\r\n") != std::string::npos) {
    return fail(ErrorCode::invalid_argument, "the ID token is empty or not a single token");
  }
  return token;
}

// RFC 8693 at the IdP: the user's ID token for an identity assertion JWT
// authorization grant (ID-JAG) addressed to `audience` for `resource`.
asio::awaitable<Result<std::string>> identity_assertion(const OAuthConfig& config,
                                                        std::string audience, std::string resource,
                                                        std::string scope) {
  const auto& provider = config.identity_provider;
  AVA_CO_TRY(auto id_token, identity_token(provider));
  ClientChoice client{provider.client_id,
                      provider.client_secret,
                      provider.client_secret.empty() ? "none" : "client_secret_basic",
                      {},
                      {}};
  auto posted = co_await post_token_form(config.http, provider.token_endpoint,
                                         "identity provider token_endpoint", std::move(client),
                                         exchange_params(id_token, audience, resource, scope), "");
  AVA_CO_TRY(const auto answer, std::move(posted));
  const auto assertion = base::json_value(answer, "access_token", "");
  if (assertion.empty()) {
    co_return fail(ErrorCode::protocol, "the identity provider's answer has no access_token");
  }
  if (const auto issued = base::json_value(answer, "issued_token_type", "");
      !issued.empty() && issued != id_jag_type) {
    co_return fail(ErrorCode::protocol,
                   fmt::format("the identity provider issued a {} instead of an ID-JAG",
                               base::redact(issued.substr(0, 80))));
  }
  co_return assertion;
}

}  // namespace

asio::awaitable<Result<TokenAnswer>> machine_grant(const OAuthConfig& config,
                                                   const Discovery& found, std::string scope) {
  const auto& metadata = found.server_metadata;
  if (config.client_id.empty()) {
    co_return fail(ErrorCode::invalid_argument,
                   fmt::format("MCP server {}: a {} grant needs a configured client id",
                               config.server_name, to_string(config.grant)));
  }
  const auto client = configured_client(config, metadata);
  if (config.grant == Grant::client_credentials) {
    if (client.auth_method == "none") {
      co_return fail(ErrorCode::invalid_argument,
                     fmt::format("MCP server {}: client credentials need a secret or a key",
                                 config.server_name));
    }
    co_return co_await token_request(config.http, metadata, client,
                                     client_credentials_params(scope, found.resource));
  }
  // The ID-JAG names the authorization server as its audience and the MCP
  // server as its resource: it is good for nothing else.
  const auto issuer = base::json_value(metadata, "issuer", "");
  const auto resource = found.resource.empty() ? config.server_url : found.resource;
  auto assertion = co_await identity_assertion(config, issuer, resource, scope);
  AVA_CO_TRY(const auto grant, std::move(assertion));
  co_return co_await token_request(config.http, metadata, client,
                                   bearer_params(grant, scope, found.resource));
}

std::string_view to_string(Grant grant) {
  switch (grant) {
    case Grant::authorization_code: return "authorization_code";
    case Grant::client_credentials: return "client_credentials";
    case Grant::cross_app_access: return "cross_app_access";
  }
  return "authorization_code";
}

Result<Grant> parse_grant(std::string_view text) {
  if (text.empty() || text == "authorization_code") return Grant::authorization_code;
  if (text == "client_credentials") return Grant::client_credentials;
  if (text == "cross_app_access") return Grant::cross_app_access;
  return fail(ErrorCode::invalid_argument,
              fmt::format("OAuth grant \"{}\" is not supported (authorization_code, "
                          "client_credentials, cross_app_access)",
                          text.substr(0, 40)));
}

}  // namespace ava::oauth
