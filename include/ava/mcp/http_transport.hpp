#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ava/base/limits.hpp"
#include "ava/mcp/transport.hpp"
#include "ava/oauth/oauth.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::mcp {

// A server at a Streamable HTTP endpoint (MCP 2025-03-26 and later).
struct HttpServer {
  std::string url;
  std::vector<transport::HttpHeader> headers;  // sent on every request; may hold credentials
  // Open the GET stream for messages the server sends outside an answer.
  bool listen = true;
  transport::HttpClientOptions client;  // timeouts, CA, proxies
  std::size_t max_message = base::Limits::defaults().mcp_message;
  int resume_attempts = 3;                        // per cut stream, with Last-Event-ID
  std::chrono::milliseconds close_timeout{5000};  // for the DELETE
  // OAuth for this server: its bearer token goes on every request, and a
  // 401 (or a 403 insufficient_scope) is handed to it; the request is sent
  // once more when it renewed the credentials. Shared by the transports of
  // one server (a restart keeps the sign-in).
  std::shared_ptr<oauth::OAuthClient> oauth;
};

// Every message is a POST with Accept: application/json, text/event-stream;
// the answer is JSON or an SSE stream (progress and server requests may come
// before the answer on it). Mcp-Session-Id from initialize and the
// negotiated MCP-Protocol-Version go on every later request. A cut stream is
// resumed with GET and Last-Event-ID. close() cancels what is in flight and
// DELETEs the session. 404 for a known session (400 from some servers)
// means the session is gone: the transport reports itself closed so its
// owner starts a new one. Without `oauth`, 401 and 403 are
// permission_denied.
std::unique_ptr<Transport> make_http_transport(HttpServer server);

}  // namespace ava::mcp
