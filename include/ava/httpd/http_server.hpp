#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json_fwd.hpp>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"

// The API server's HTTP layer. Beast stays inside http_server.cpp (one
// translation unit, for build time); routes see these plain types only.
namespace ava::httpd {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: path and query
  // From parse_request_target (request_target.hpp), decoded once: everything
  // that looks at the path (fence, router, static files) uses these.
  std::string path;                                         // "/" + segments joined by "/"
  std::vector<std::string> segments;                        // "/" is none
  std::map<std::string, std::string, std::less<>> query;    // decoded
  std::map<std::string, std::string, std::less<>> headers;  // names lower-cased
  std::string body;
  std::vector<std::string> params;  // the route's {placeholders}, in order

  std::string_view header(std::string_view lower_name) const;
  std::optional<std::string_view> query_value(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

HttpResponse json_response(int status, const nlohmann::json& body);
// {"error": {"code", "message"}} with the status that fits `error`'s code.
HttpResponse error_response(const Error& error);
HttpResponse error_response(int status, std::string_view code, std::string_view message);
int http_status_for(ErrorCode code);

struct WebSocketMessage {
  std::string data;
  bool binary = false;  // else text (valid UTF-8, checked by the protocol layer)
};

// A WebSocket a route accepted. One read and one write may be in progress at
// once (from the connection's strand); pings and the closing handshake are
// answered inside read(). An idle peer is pinged and dropped when it stops
// answering.
class WebSocket {
 public:
  virtual ~WebSocket() = default;
  // The next message; an error once the peer closed or the connection failed.
  virtual boost::asio::awaitable<Result<WebSocketMessage>> read() = 0;
  virtual boost::asio::awaitable<Result<void>> write(std::string_view data, bool binary) = 0;
  // Sends a close frame with its status code (RFC 6455 7.4.1: 1000 normal,
  // 1008 a message this endpoint refuses, 1011 a failure) and a short reason.
  virtual boost::asio::awaitable<void> close(std::uint16_t code, std::string_view reason) = 0;
};

// One request being answered. A handler either responds once or turns the
// response into an event stream and writes frames until it returns.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const HttpRequest& request() const = 0;
  virtual boost::asio::awaitable<void> respond(HttpResponse response) = 0;
  // Sends the head of a text/event-stream response. False when the peer is gone.
  virtual boost::asio::awaitable<bool> begin_events() = 0;
  // Writes complete SSE frames; false when the peer is gone or too slow
  // (a write that makes no progress for the write timeout).
  virtual boost::asio::awaitable<bool> write_events(std::string_view frames) = 0;
  // The connection's socket, for non-blocking writes from any thread while
  // no other operation on this exchange runs. It stays open until the
  // handler returns, so the descriptor cannot be another connection's by then.
  virtual int socket_handle() = 0;
  // Completes the WebSocket handshake (RFC 6455) for a request that
  // is_websocket_upgrade; the exchange then belongs to the socket, which
  // stays usable until the handler returns. Messages over max_message bytes
  // end the connection.
  virtual boost::asio::awaitable<Result<std::unique_ptr<WebSocket>>> accept_websocket(
      std::size_t max_message) = 0;
};

using Handler = std::function<boost::asio::awaitable<void>(Exchange& exchange)>;

// Whether the request asks to become a WebSocket (Upgrade: websocket).
bool is_websocket_upgrade(const HttpRequest& request);

// Method + path patterns such as /api/conversations/{id}/input.
class Router {
 public:
  void add(std::string method, const std::string& pattern, Handler handler);
  // The handler for a request, with its placeholders stored in
  // request.params; a 404 or 405 response when none fits.
  std::variant<const Handler*, HttpResponse> match(HttpRequest& request) const;
  // GET requests outside /api/ that no route takes (the web UI's files).
  void set_fallback(Handler handler) { fallback_ = std::move(handler); }

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;  // "{}" for a placeholder
    Handler handler;
  };
  std::vector<Route> routes_;
  Handler fallback_;
};

class LoginGate;

// Who may talk to the server (docs/security.md). Both modes accept only
// loopback Host names with the bound port, an Origin that is absent or the
// same origin (DNS rebinding, cross-site pages), a Sec-Fetch-Site that is
// absent, same-origin or none, and for requests with a body exactly
// application/json. Every request then needs a secret: the bearer token, or
// a session cookie from `logins`; only the login routes themselves
// (`POST /api/login`, `GET /?login=CODE`) are open.
struct Fence {
  std::uint16_t port = 0;
  std::optional<std::string> token;         // the bearer token (backend.json)
  std::shared_ptr<const LoginGate> logins;  // browser sessions
  // nullopt when the request may pass, else the refusal.
  std::optional<HttpResponse> check(const HttpRequest& request) const;
  // Whether the request carries the bearer token.
  bool holds_token(const HttpRequest& request) const;
};

// Whether the request is one of the login routes, which need no secret.
bool is_login_request(const HttpRequest& request);

// The port of a loopback Host header ("127.0.0.1:8080", "localhost:8080",
// "[::1]:8080"); nullopt for any other host or a malformed port. The fence
// and the routes that tell tunnels apart read Host through this.
std::optional<std::uint16_t> loopback_host_port(std::string_view host);
// Whether the path is under /api/.
bool is_api_request(const HttpRequest& request);

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0: ephemeral
  std::size_t max_connections = 4096;
  // Connections accepted but without a complete request head yet; past
  // this, new connections are closed at once (see accept_loop).
  std::size_t max_unread_heads = 2048;
  base::Limits limits = base::Limits::defaults();
  std::chrono::seconds body_timeout{30};
  std::chrono::seconds write_timeout{30};
  std::chrono::seconds idle_timeout{75};  // keep-alive: waiting for the next request
};

// Accepts connections and serves each on its own strand. Requests that fail
// the fence, exceed a limit or cannot be parsed get their error response
// and the connection closes; other connections are not affected.
class HttpServer {
 public:
  static Result<std::unique_ptr<HttpServer>> listen(boost::asio::io_context& io,
                                                    ServerOptions options, Fence fence,
                                                    std::shared_ptr<const Router> router);
  virtual ~HttpServer() = default;
  virtual std::uint16_t port() const = 0;
  virtual void start() = 0;
  // Stops accepting; requests in progress finish.
  virtual void stop_accepting() = 0;
  virtual std::size_t open_connections() const = 0;
};

}  // namespace ava::httpd
