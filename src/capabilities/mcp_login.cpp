#include "ava/capabilities/mcp_login.hpp"

#include <fmt/format.h>

#include "ava/base/private_file.hpp"

namespace ava::capabilities {

namespace {

// ID tokens are a few KiB; the file is read at every exchange because the
// SSO tool that writes it replaces the token when it expires.
constexpr std::size_t max_id_token_bytes = 64 * 1024;

std::function<Result<std::string>()> id_token_reader(std::string file) {
  return [file = std::move(file)]() -> Result<std::string> {
    auto text = base::read_file_limited(file, max_id_token_bytes);
    if (!text) {
      return fail(text.error().code, fmt::format("the ID token file {} cannot be read: {}", file,
                                                 text.error().message));
    }
    const auto first = text->find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
      return fail(ErrorCode::invalid_argument, fmt::format("the ID token file {} is empty", file));
    }
    const auto last = text->find_last_not_of(" \t\r\n");
    return text->substr(first, last - first + 1);
  };
}

}  // namespace

oauth::OAuthConfig oauth_config(const McpServerEntry& entry,
                                std::shared_ptr<oauth::CredentialStore> credentials) {
  oauth::OAuthConfig config;
  config.server_name = entry.name;
  config.server_url = entry.url;
  config.client_id = entry.oauth_client_id;
  config.client_secret = entry.oauth_client_secret;
  const auto& grant = entry.oauth_grant;
  // validate() accepted the entry, so the grant parses.
  config.grant = oauth::parse_grant(grant.grant).value_or(oauth::Grant::authorization_code);
  config.private_key_pem = grant.private_key;
  config.signing_algorithm = grant.signing_algorithm;
  config.scope = grant.scope;
  config.issuer = grant.issuer;
  if (config.grant == oauth::Grant::cross_app_access) {
    config.identity_provider.token_endpoint = grant.idp_token_endpoint;
    config.identity_provider.client_id = grant.idp_client_id;
    config.identity_provider.client_secret = grant.idp_client_secret;
    config.identity_provider.id_token = id_token_reader(grant.id_token_file);
  }
  config.store = std::move(credentials);
  return config;
}

Result<std::shared_ptr<oauth::OAuthClient>> sign_in_client(
    const boost::asio::any_io_executor& executor, const McpServerEntry& entry,
    std::shared_ptr<oauth::CredentialStore> credentials, oauth::UrlOpener open_url,
    std::chrono::milliseconds timeout, std::shared_ptr<oauth::RedirectRelay> relay) {
  if (entry.transport != "http") {
    return fail(ErrorCode::invalid_argument,
                "MCP server " + entry.name + " runs over stdio; only HTTP servers sign in");
  }
  if (has_own_authorization(entry)) {
    return fail(ErrorCode::invalid_argument,
                "MCP server " + entry.name +
                    " is configured with its own Authorization header; remove it to use OAuth");
  }
  oauth::OAuthConfig config = oauth_config(entry, std::move(credentials));
  config.open_url = std::move(open_url);
  config.login_timeout = timeout;
  config.relay = std::move(relay);
  config.wait_for_login = true;
  return oauth::OAuthClient::create(executor, std::move(config));
}

}  // namespace ava::capabilities
