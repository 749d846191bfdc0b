#include "ava/capabilities/mcp_login.hpp"

namespace ava::capabilities {

oauth::OAuthConfig oauth_config(const McpServerEntry& entry,
                                std::shared_ptr<oauth::CredentialStore> credentials) {
  oauth::OAuthConfig config;
  config.server_name = entry.name;
  config.server_url = entry.url;
  config.client_id = entry.oauth_client_id;
  config.client_secret = entry.oauth_client_secret;
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
