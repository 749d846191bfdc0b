// Discovery after the MCP authorization spec: the protected resource
// metadata (RFC 9728) names the authorization server, whose metadata (RFC
// 8414 or OpenID Connect discovery) names the endpoints. A 2025-03-26
// server has no resource metadata: its origin is the authorization server,
// and without metadata the default endpoints /authorize, /token and
// /register apply.

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "ava/base/json.hpp"
#include "ava/base/log.hpp"
#include "ava/transport/url.hpp"
#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

std::string trim_slash(std::string_view text) {
  while (text.size() > 1 && text.back() == '/') text.remove_suffix(1);
  return std::string(text);
}

// The path of a URL without its query ("/" and "" are both empty here).
std::string path_of(const transport::Url& url) {
  std::string path = url.target.substr(0, url.target.find('?'));
  if (path == "/") path.clear();
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

std::string string_list(const json& value) {
  std::string out;
  if (!value.is_array()) return out;
  for (const auto& item : value) {
    if (item.is_string()) out += (out.empty() ? "" : " ") + item.get<std::string>();
  }
  return out;
}

asio::awaitable<Result<json>> resource_metadata(transport::HttpClientOptions options,
                                                const transport::Url& server,
                                                std::string from_header) {
  std::vector<std::string> candidates;
  if (!from_header.empty()) {
    // The server's challenge names it: a URL from a peer like any other.
    AVA_CO_TRY_VOID(check_endpoint("resource_metadata", from_header));
    candidates.push_back(from_header);
  }
  if (const auto path = path_of(server); !path.empty()) {
    candidates.push_back(server.origin() + "/.well-known/oauth-protected-resource" + path);
  }
  candidates.push_back(server.origin() + "/.well-known/oauth-protected-resource");
  Error last{ErrorCode::not_found, "no protected resource metadata"};
  for (const auto& url : candidates) {
    auto found = co_await get_json(options, url);
    if (found) co_return std::move(*found);
    spdlog::debug("mcp oauth: {}", found.error().message);
    last = std::move(found).error();
    if (last.code != ErrorCode::not_found) co_return std::unexpected(std::move(last));
  }
  co_return std::unexpected(std::move(last));
}

// RFC 8414 §3 for an issuer with a path inserts the well-known part before
// it; OpenID Connect discovery appends it, and the spec tries both.
std::vector<std::string> server_metadata_urls(const transport::Url& issuer) {
  const auto origin = issuer.origin();
  const auto path = path_of(issuer);
  if (path.empty()) {
    return {origin + "/.well-known/oauth-authorization-server",
            origin + "/.well-known/openid-configuration"};
  }
  return {origin + "/.well-known/oauth-authorization-server" + path,
          origin + "/.well-known/openid-configuration" + path,
          origin + path + "/.well-known/openid-configuration"};
}

// RFC 8414 §3.3: the metadata names the issuer it was fetched for. A
// 2025-03-26 server (legacy) has no resource metadata, so the client only
// guessed the server's origin as the issuer; its metadata may name an
// issuer with a path there (the conformance suite serves /oauth), but never
// one on another origin. Every endpoint must be https (or loopback http).
Result<void> check_server_metadata(const json& metadata, std::string_view issuer, bool legacy) {
  const auto named = base::json_field<std::string>(metadata, "issuer");
  if (!named || named->empty()) {
    return fail(ErrorCode::protocol,
                fmt::format("authorization server {} metadata lacks issuer", issuer));
  }
  if (legacy) {
    auto asked = transport::Url::parse(issuer);
    auto answered = transport::Url::parse(*named);
    if (!asked || !answered || asked->origin() != answered->origin()) {
      return fail(ErrorCode::protocol,
                  fmt::format("authorization server metadata at {} names issuer {}, which is on "
                              "another origin",
                              issuer, *named));
    }
  } else if (trim_slash(*named) != trim_slash(issuer)) {
    return fail(
        ErrorCode::protocol,
        fmt::format("authorization server metadata names issuer {} instead of {}", *named, issuer));
  }
  for (const char* field : {"authorization_endpoint", "token_endpoint"}) {
    const auto endpoint = base::json_field<std::string>(metadata, field);
    if (!endpoint) {
      return fail(ErrorCode::protocol,
                  fmt::format("authorization server {} metadata lacks {}", issuer, field));
    }
    AVA_TRY_VOID(check_endpoint(field, *endpoint));
  }
  if (metadata.contains("registration_endpoint")) {
    const auto endpoint = base::json_field<std::string>(metadata, "registration_endpoint");
    if (!endpoint) {
      return fail(ErrorCode::protocol,
                  fmt::format("authorization server {} metadata: registration_endpoint is not a "
                              "string",
                              issuer));
    }
    AVA_TRY_VOID(check_endpoint("registration_endpoint", *endpoint));
  }
  // PKCE is required; a server that does not list S256 cannot be used.
  const auto methods = base::json_field<json>(metadata, "code_challenge_methods_supported");
  if (!methods || !methods->is_array() ||
      std::ranges::none_of(*methods, [](const json& method) { return method == "S256"; })) {
    return fail(ErrorCode::unsupported,
                fmt::format("authorization server {} does not support PKCE S256", issuer));
  }
  return {};
}

// Not built inside the coroutine: g++ 12 trips over braced lists there.
json legacy_metadata(const std::string& issuer) {
  return json{{"issuer", issuer},
              {"authorization_endpoint", issuer + "/authorize"},
              {"token_endpoint", issuer + "/token"},
              {"registration_endpoint", issuer + "/register"},
              {"code_challenge_methods_supported", json::array({"S256"})}};
}

}  // namespace

bool resource_covers(std::string_view resource, std::string_view server_url) {
  auto a = transport::Url::parse(resource);
  auto b = transport::Url::parse(server_url);
  if (!a || !b || a->origin() != b->origin()) return false;
  const auto prefix = path_of(*a);
  const auto path = path_of(*b);
  return path == prefix || (path.starts_with(prefix) && path[prefix.size()] == '/');
}

asio::awaitable<Result<Discovery>> discover(transport::HttpClientOptions options,
                                            std::string server_url,
                                            std::string resource_metadata_url) {
  AVA_CO_TRY(auto server, transport::Url::parse(server_url));
  Discovery out;
  auto prm = co_await resource_metadata(options, server, std::move(resource_metadata_url));
  std::string issuer;
  if (prm) {
    const auto& doc = *prm;
    // RFC 9728 §3.3: the resource must be the one asked about.
    const auto resource = base::json_value(doc, "resource", "");
    if (resource.empty() || !resource_covers(resource, server_url)) {
      co_return fail(ErrorCode::protocol,
                     fmt::format("protected resource metadata names resource '{}', not {}",
                                 base::redact_url(resource), base::redact_url(server_url)));
    }
    const auto servers = base::json_value(doc, "authorization_servers", json::array());
    if (!servers.is_array() || servers.empty() || !servers[0].is_string()) {
      co_return fail(ErrorCode::protocol,
                     "protected resource metadata names no authorization server");
    }
    issuer = servers[0].get<std::string>();
    AVA_CO_TRY_VOID(check_endpoint("authorization_servers", issuer));
    out.resource = resource;
    out.scopes_supported = string_list(base::json_value(doc, "scopes_supported", json::array()));
    out.resource_metadata = doc;
  } else if (prm.error().code != ErrorCode::not_found) {
    co_return std::unexpected(std::move(prm).error());
  } else {
    issuer = server.origin();  // 2025-03-26
  }
  AVA_CO_TRY(auto issuer_url, transport::Url::parse(issuer));
  for (const auto& url : server_metadata_urls(issuer_url)) {
    auto found = co_await get_json(options, url);
    if (!found && found.error().code == ErrorCode::not_found) continue;
    if (!found) co_return std::unexpected(std::move(found).error());
    AVA_CO_TRY_VOID(check_server_metadata(*found, issuer, out.resource_metadata.is_null()));
    out.server_metadata = std::move(*found);
    co_return out;
  }
  if (!out.resource_metadata.is_null()) {
    co_return fail(ErrorCode::not_found,
                   fmt::format("authorization server {} publishes no metadata", issuer));
  }
  // 2025-03-26 without metadata: the default endpoints at the origin.
  out.server_metadata = legacy_metadata(issuer);
  AVA_CO_TRY_VOID(check_server_metadata(out.server_metadata, issuer, true));
  co_return out;
}

}  // namespace ava::oauth
