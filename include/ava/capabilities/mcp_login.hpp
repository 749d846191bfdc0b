#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "ava/capabilities/mcp_config.hpp"
#include "ava/oauth/oauth.hpp"

namespace ava::capabilities {

// The OAuth settings a configured HTTP server brings (name, endpoint,
// pre-registered client) with its credential store; the caller sets how a
// sign-in runs (interactive or not).
oauth::OAuthConfig oauth_config(const McpServerEntry& entry,
                                std::shared_ptr<oauth::CredentialStore> credentials);

// The OAuth client for an interactive sign-in to a configured HTTP server
// (`ava mcp login`, POST /api/mcp/servers/{name}/login): credentials saved
// to `credentials` under its generation fence; `open_url` shows the page;
// the loopback listener waits `timeout` for the browser's redirect (or,
// with `relay`, the client on the browser's machine delivers it there).
// invalid_argument for a stdio server or one that sends its own
// Authorization header (it does not use OAuth).
Result<std::shared_ptr<oauth::OAuthClient>> sign_in_client(
    const boost::asio::any_io_executor& executor, const McpServerEntry& entry,
    std::shared_ptr<oauth::CredentialStore> credentials, oauth::UrlOpener open_url,
    std::chrono::milliseconds timeout, std::shared_ptr<oauth::RedirectRelay> relay = nullptr);

}  // namespace ava::capabilities
