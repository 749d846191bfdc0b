// Client registration and token requests.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "ava/base/base64.hpp"
#include "ava/base/json.hpp"
#include "ava/base/log.hpp"
#include "ava/base/text.hpp"
#include "ava/oauth/jwt.hpp"
#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

bool supports(const json& metadata, const char* field, std::string_view value) {
  const auto list = base::json_value(metadata, field, json::array());
  if (!list.is_array()) return false;
  return std::ranges::any_of(
      list, [&](const json& item) { return item.is_string() && item.get<std::string>() == value; });
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

// RFC 7523 §3: iss and sub are the client, aud the authorization server;
// short-lived and unique so a captured assertion is of little use.
json assertion_claims(const std::string& client_id, const std::string& audience) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  return json{{"iss", client_id}, {"sub", client_id}, {"aud", audience},
              {"iat", now},       {"exp", now + 300}, {"jti", random_token(16)}};
}

}  // namespace

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

std::optional<long long> parse_expires_in(const json& answer) {
  const auto found = base::json_field<json>(answer, "expires_in");
  if (!found) return std::nullopt;
  if (found->is_number_unsigned()) {
    return static_cast<long long>(std::min<std::uint64_t>(
        found->get<std::uint64_t>(), static_cast<std::uint64_t>(max_expires_in)));
  }
  if (found->is_number_integer()) {
    const auto seconds = found->get<std::int64_t>();
    if (seconds < 0) return std::nullopt;
    return std::min<long long>(seconds, max_expires_in);
  }
  if (found->is_number_float()) {
    const double seconds = found->get<double>();
    if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
    if (seconds >= static_cast<double>(max_expires_in)) return max_expires_in;
    return static_cast<long long>(seconds);
  }
  if (found->is_string()) {
    // Some servers send "3600"; digits only, anything longer than a year cut.
    const auto& text = found->get_ref<const std::string&>();
    if (text.empty() || !std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    unsigned long long seconds = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (error == std::errc::result_out_of_range) return max_expires_in;
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return static_cast<long long>(
        std::min<unsigned long long>(seconds, static_cast<unsigned long long>(max_expires_in)));
  }
  return std::nullopt;
}

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
      base::json_value(metadata, "client_id_metadata_document_supported", false)) {
    co_return ClientChoice{config.client_metadata_url, "", "none"};
  }
  const auto endpoint = base::json_value(metadata, "registration_endpoint", "");
  if (endpoint.empty()) {
    co_return fail(ErrorCode::unsupported,
                   fmt::format("authorization server {} offers no client registration; "
                               "configure a client id for this server",
                               base::json_value(metadata, "issuer", "")));
  }
  AVA_CO_TRY_VOID(check_endpoint("registration_endpoint", endpoint));
  const json body = registration_request(config, metadata, redirect_uri, scope);
  transport::HttpRequest request{.method = "POST", .url = endpoint, .headers = {}, .body = {}};
  request.body = body.dump();
  request.headers.push_back({"Content-Type", "application/json"});
  request.headers.push_back({"Accept", "application/json"});
  AVA_CO_TRY(auto response, co_await http_send(config.http, std::move(request)));
  const json answer = parse_document(response.body).value_or(json());
  const auto client_id = base::json_field<std::string>(answer, "client_id");
  if (response.status < 200 || response.status >= 300 || !client_id) {
    // The body may echo a secret: redacted like a log line.
    co_return fail(
        ErrorCode::protocol,
        fmt::format("client registration at {} failed (HTTP {}): {}", base::redact_url(endpoint),
                    response.status, base::redact(response.body.substr(0, 300))));
  }
  ClientChoice chosen;
  chosen.client_id = *client_id;
  chosen.client_secret = base::json_value(answer, "client_secret", "");
  chosen.auth_method = base::json_value(answer, "token_endpoint_auth_method", "");
  if (chosen.auth_method.empty()) {
    chosen.auth_method = chosen.client_secret.empty() ? "none" : body["token_endpoint_auth_method"];
  }
  if (chosen.auth_method == "none" && !chosen.client_secret.empty() &&
      !supports(metadata, "token_endpoint_auth_methods_supported", "none")) {
    chosen.auth_method = pick_auth_method(metadata, true);
  }
  co_return chosen;
}

asio::awaitable<Result<json>> post_token_form(transport::HttpClientOptions options,
                                              std::string endpoint, std::string field,
                                              ClientChoice client, Params params,
                                              std::string audience) {
  // Checked here, at every use: credentials stored by an older Ava carry
  // metadata that was never held to the endpoint rules.
  AVA_CO_TRY_VOID(check_endpoint(field, endpoint));
  transport::HttpRequest request{.method = "POST", .url = endpoint, .headers = {}, .body = {}};
  request.headers.push_back({"Content-Type", "application/x-www-form-urlencoded"});
  request.headers.push_back({"Accept", "application/json"});
  if (client.auth_method == "client_secret_basic") {
    // RFC 6749 §2.3.1: both parts form-encoded before base64.
    const auto pair =
        base::percent_encode(client.client_id) + ":" + base::percent_encode(client.client_secret);
    request.headers.push_back({"Authorization", "Basic " + base::base64_encode(pair)});
  } else {
    params.emplace_back("client_id", client.client_id);
    if (client.auth_method == "client_secret_post") {
      params.emplace_back("client_secret", client.client_secret);
    } else if (client.auth_method == "private_key_jwt") {
      AVA_CO_TRY(auto assertion,
                 sign_jwt(client.private_key_pem, client.signing_algorithm, json::object(),
                          assertion_claims(client.client_id, audience)));
      params.emplace_back("client_assertion_type",
                          "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
      params.emplace_back("client_assertion", std::move(assertion));
    }
  }
  request.body = base::form_encode(params);
  AVA_CO_TRY(auto response, co_await http_send(std::move(options), std::move(request)));
  json answer = parse_document(response.body).value_or(json());
  if (response.status != 200 || !answer.is_object()) {
    const auto code = base::json_value(answer, "error", "");
    co_return fail(
        ErrorCode::protocol,
        fmt::format("token request at {} failed (HTTP {}){}{}", base::redact_url(endpoint),
                    response.status, code.empty() ? "" : ": ", base::redact(code.substr(0, 100))));
  }
  co_return answer;
}

asio::awaitable<Result<TokenAnswer>> token_request(transport::HttpClientOptions options,
                                                   json server_metadata, ClientChoice client,
                                                   Params params) {
  const auto endpoint = base::json_value(server_metadata, "token_endpoint", "");
  const auto issuer = base::json_value(server_metadata, "issuer", "");
  auto posted = co_await post_token_form(std::move(options), endpoint, "token_endpoint",
                                         std::move(client), std::move(params), issuer);
  AVA_CO_TRY(const auto answer, std::move(posted));
  const auto access_token = base::json_field<std::string>(answer, "access_token");
  if (!access_token || access_token->empty()) {
    co_return fail(ErrorCode::protocol, fmt::format("the token answer of {} has no access_token",
                                                    base::redact_url(endpoint)));
  }
  const auto type = base::json_value(answer, "token_type", "Bearer");
  if (base::ascii_lower(type) != "bearer") {
    co_return fail(ErrorCode::unsupported,
                   fmt::format("token type {} is not supported", type.substr(0, 40)));
  }
  TokenAnswer out;
  out.access_token = *access_token;
  out.refresh_token = base::json_value(answer, "refresh_token", "");
  out.scope = base::json_value(answer, "scope", "");
  out.expires_in = parse_expires_in(answer);
  co_return out;
}

}  // namespace ava::oauth
