// Client registration and token requests.

#include <algorithm>

#include <fmt/format.h>

#include "tool/mcp/oauth_internal.hpp"

namespace ava::tool::mcp::oauth {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

bool supports(const json& metadata, const char* field, std::string_view value) {
  const auto& list = metadata.value(field, json::array());
  return std::ranges::any_of(
      list, [&](const json& item) { return item.is_string() && item.get<std::string>() == value; });
}

// RFC 8414: without token_endpoint_auth_methods_supported the default is
// client_secret_basic. A client with a secret prefers basic, then post.
std::string pick_auth_method(const json& metadata, bool has_secret) {
  if (!has_secret) return "none";
  if (!metadata.contains("token_endpoint_auth_methods_supported")) return "client_secret_basic";
  if (supports(metadata, "token_endpoint_auth_methods_supported", "client_secret_basic")) {
    return "client_secret_basic";
  }
  if (supports(metadata, "token_endpoint_auth_methods_supported", "client_secret_post")) {
    return "client_secret_post";
  }
  return "none";
}

// What Ava asks to be registered as: a native app with a loopback redirect.
// A public client ("none") when the server allows it, else a confidential
// one with the method the server lists first among those Ava speaks.
json registration_request(const OAuthConfig& config, const json& metadata,
                          const std::string& redirect_uri, const std::string& scope) {
  std::string method = "none";
  if (metadata.contains("token_endpoint_auth_methods_supported") &&
      !supports(metadata, "token_endpoint_auth_methods_supported", "none")) {
    method = pick_auth_method(metadata, true);
  }
  json body = {{"client_name", config.client_name},
               {"redirect_uris", json::array({redirect_uri})},
               {"grant_types", json::array({"authorization_code", "refresh_token"})},
               {"response_types", json::array({"code"})},
               {"token_endpoint_auth_method", method}};
  if (!scope.empty()) body["scope"] = scope;
  return body;
}

}  // namespace

asio::awaitable<Result<ClientChoice>> choose_client(const OAuthConfig& config,
                                                    const Discovery& found,
                                                    std::string redirect_uri, std::string scope) {
  const auto& metadata = found.server_metadata;
  if (!config.client_id.empty()) {
    ClientChoice chosen{config.client_id, config.client_secret, config.auth_method};
    if (chosen.auth_method.empty()) {
      chosen.auth_method = pick_auth_method(metadata, !chosen.client_secret.empty());
    }
    co_return chosen;
  }
  if (!config.client_metadata_url.empty() &&
      metadata.value("client_id_metadata_document_supported", false)) {
    co_return ClientChoice{config.client_metadata_url, "", "none"};
  }
  const auto endpoint = metadata.value("registration_endpoint", std::string());
  if (endpoint.empty()) {
    co_return fail(ErrorCode::unsupported,
                   fmt::format("authorization server {} offers no client registration; "
                               "configure a client id for this server",
                               metadata.value("issuer", "")));
  }
  const json body = registration_request(config, metadata, redirect_uri, scope);
  transport::HttpRequest request{.method = "POST", .url = endpoint, .headers = {}, .body = {}};
  request.body = body.dump();
  request.headers.push_back({"Content-Type", "application/json"});
  request.headers.push_back({"Accept", "application/json"});
  AVA_CO_TRY(auto response, co_await http_send(config.http, std::move(request)));
  json answer = json::parse(response.body, nullptr, false);
  if (response.status < 200 || response.status >= 300 || !answer.is_object() ||
      !answer.contains("client_id") || !answer["client_id"].is_string()) {
    co_return fail(ErrorCode::protocol,
                   fmt::format("client registration at {} failed (HTTP {}): {}", endpoint,
                               response.status, response.body.substr(0, 300)));
  }
  ClientChoice chosen;
  chosen.client_id = answer["client_id"].get<std::string>();
  chosen.client_secret = answer.value("client_secret", std::string());
  chosen.auth_method = answer.value("token_endpoint_auth_method", std::string());
  if (chosen.auth_method.empty()) {
    chosen.auth_method = chosen.client_secret.empty() ? "none" : body["token_endpoint_auth_method"];
  }
  if (chosen.auth_method == "none" && !chosen.client_secret.empty() &&
      !supports(metadata, "token_endpoint_auth_methods_supported", "none")) {
    chosen.auth_method = pick_auth_method(metadata, true);
  }
  co_return chosen;
}

asio::awaitable<Result<TokenAnswer>> token_request(transport::HttpClientOptions options,
                                                   json server_metadata, ClientChoice client,
                                                   Params params) {
  const auto endpoint = server_metadata.value("token_endpoint", std::string());
  transport::HttpRequest request{.method = "POST", .url = endpoint, .headers = {}, .body = {}};
  request.headers.push_back({"Content-Type", "application/x-www-form-urlencoded"});
  request.headers.push_back({"Accept", "application/json"});
  if (client.auth_method == "client_secret_basic") {
    // RFC 6749 §2.3.1: both parts form-encoded before base64.
    const auto pair = percent_encode(client.client_id) + ":" + percent_encode(client.client_secret);
    request.headers.push_back({"Authorization", "Basic " + base64(pair, false)});
  } else {
    params.emplace_back("client_id", client.client_id);
    if (client.auth_method == "client_secret_post") {
      params.emplace_back("client_secret", client.client_secret);
    }
  }
  request.body = form_encode(params);
  AVA_CO_TRY(auto response, co_await http_send(std::move(options), std::move(request)));
  json answer = json::parse(response.body, nullptr, false);
  if (response.status != 200 || !answer.is_object() || !answer.contains("access_token") ||
      !answer["access_token"].is_string()) {
    std::string code = answer.is_object() ? answer.value("error", std::string()) : "";
    co_return fail(ErrorCode::protocol,
                   fmt::format("token request at {} failed (HTTP {}){}{}", endpoint,
                               response.status, code.empty() ? "" : ": ", code));
  }
  const auto type = answer.value("token_type", std::string("Bearer"));
  if (type != "Bearer" && type != "bearer") {
    co_return fail(ErrorCode::unsupported, fmt::format("token type {} is not supported", type));
  }
  TokenAnswer out;
  out.access_token = answer["access_token"].get<std::string>();
  out.refresh_token = answer.value("refresh_token", std::string());
  out.scope = answer.value("scope", std::string());
  if (answer.contains("expires_in") && answer["expires_in"].is_number()) {
    out.expires_in = answer["expires_in"].get<long long>();
  }
  co_return out;
}

}  // namespace ava::tool::mcp::oauth
