// The Beast half of the HTTP layer: accepting, reading requests within their
// limits and deadlines, writing responses and event streams.
#include "ava/httpd/http_server.hpp"

#include "ava/base/text.hpp"
#include "httpd/request_target.hpp"
#include "httpd/websocket.hpp"

#include <array>
#include <atomic>
#include <cerrno>

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace ava::httpd {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
constexpr auto no_throw = asio::as_tuple(asio::use_awaitable);
constexpr std::chrono::milliseconds accept_backoff{100};

// The request as routes see it; invalid_argument when the target is not a
// plain origin-form path (parse_request_target).
Result<HttpRequest> to_request(const http::request<http::string_body>& message) {
  HttpRequest request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  AVA_TRY(RequestTarget target, parse_request_target(request.target));
  request.path = std::move(target.path);
  request.segments = std::move(target.segments);
  request.query = std::move(target.query);
  for (const auto& field : message) {
    std::string name = base::ascii_lower(field.name_string());
    // Repeated Cookie headers join with "; " (RFC 6265 5.4), others with ", ".
    const char* separator = name == "cookie" ? "; " : ", ";
    auto [it, inserted] = request.headers.emplace(std::move(name), std::string(field.value()));
    if (!inserted) it->second += separator + std::string(field.value());
  }
  request.body = message.body();
  return request;
}

// Sent with every response: pages of this origin load only their own
// scripts, styles, images and connections, and no other site may frame them.
constexpr std::string_view content_security_policy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

class ServerImpl;

class BeastExchange final : public Exchange {
 public:
  BeastExchange(beast::tcp_stream& stream, HttpRequest request, unsigned version, bool keep_alive,
                const ServerOptions& options)
      : stream_(stream),
        request_(std::move(request)),
        version_(version),
        keep_alive_(keep_alive),
        options_(options) {}

  const HttpRequest& request() const override { return request_; }
  HttpRequest& mutable_request() { return request_; }

  asio::awaitable<void> respond(HttpResponse response) override {
    http::response<http::string_body> message{static_cast<http::status>(response.status), version_};
    message.set(http::field::server, "ava");
    message.set(http::field::content_type, response.content_type);
    message.set(http::field::cache_control, "no-store");
    message.set("X-Content-Type-Options", "nosniff");
    message.set("Content-Security-Policy", content_security_policy);
    message.set("Referrer-Policy", "no-referrer");
    message.set("X-Frame-Options", "DENY");
    for (const auto& [name, value] : response.headers) {
      // A route's header replaces the default, but cookies add up.
      if (beast::iequals(name, "set-cookie")) {
        message.insert(name, value);
      } else {
        message.set(name, value);
      }
    }
    message.keep_alive(keep_alive_ && response.status < 400);
    message.body() = std::move(response.body);
    message.prepare_payload();
    stream_.expires_after(options_.write_timeout);
    auto [ec, written] = co_await http::async_write(stream_, message, no_throw);
    responded_ = true;
    if (ec || !message.keep_alive()) keep_alive_ = false;
  }

  asio::awaitable<bool> begin_events() override {
    // No length and Connection: close: the stream ends when the server closes it.
    http::response<http::empty_body> message{http::status::ok, version_};
    message.set(http::field::server, "ava");
    message.set(http::field::content_type, "text/event-stream");
    message.set(http::field::cache_control, "no-store");
    message.set("X-Accel-Buffering", "no");
    message.keep_alive(false);
    http::response_serializer<http::empty_body> serializer(message);
    stream_.expires_after(options_.write_timeout);
    auto [ec, written] = co_await http::async_write_header(stream_, serializer, no_throw);
    responded_ = true;
    keep_alive_ = false;
    co_return !ec;
  }

  asio::awaitable<bool> write_events(std::string_view frames) override {
    // A frame nearly always fits in the socket's send buffer: try a
    // non-blocking send first, which spares a timer and a trip through the
    // scheduler per subscriber when one event goes to a thousand of them.
    // Only what does not fit waits, under the write timeout.
    auto& socket = stream_.socket();
    boost::system::error_code ec;
    if (!socket.non_blocking()) socket.non_blocking(true, ec);
    if (!ec) {
      const std::size_t sent = socket.write_some(asio::buffer(frames.data(), frames.size()), ec);
      if (!ec && sent == frames.size()) co_return true;
      if (ec && ec != asio::error::would_block && ec != asio::error::try_again) co_return false;
      frames.remove_prefix(ec ? 0 : sent);
    }
    stream_.expires_after(options_.write_timeout);
    auto [error, written] =
        co_await asio::async_write(stream_, asio::buffer(frames.data(), frames.size()), no_throw);
    co_return !error;
  }

  int socket_handle() override { return stream_.socket().native_handle(); }

  asio::awaitable<Result<std::unique_ptr<WebSocket>>> accept_websocket(
      std::size_t max_message) override {
    // Whatever happens, this connection carries no more HTTP requests.
    responded_ = true;
    keep_alive_ = false;
    co_return co_await httpd::accept_websocket(stream_, request_, version_, max_message);
  }

  bool responded() const { return responded_; }
  bool keep_alive() const { return keep_alive_; }

 private:
  beast::tcp_stream& stream_;
  HttpRequest request_;
  unsigned version_;
  bool keep_alive_;
  bool responded_ = false;
  const ServerOptions& options_;
};

class ServerImpl final : public HttpServer, public std::enable_shared_from_this<ServerImpl> {
 public:
  ServerImpl(asio::io_context& io, ServerOptions options, Fence fence,
             std::shared_ptr<const Router> router)
      : io_(io),
        acceptor_(io),
        options_(std::move(options)),
        fence_(std::move(fence)),
        router_(std::move(router)) {}

  Result<void> bind() {
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(options_.address, ec);
    if (ec) return fail(ErrorCode::invalid_argument, "bad listen address " + options_.address);
    if (!address.is_loopback()) {
      return fail(ErrorCode::invalid_argument, "the API server binds loopback addresses only");
    }
    const tcp::endpoint endpoint(address, options_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return fail(ErrorCode::unavailable, "cannot listen on " + options_.address + ":" +
                                              std::to_string(options_.port) + ": " + ec.message());
    }
    port_ = acceptor_.local_endpoint().port();
    fence_.port = port_;
    return {};
  }

  std::uint16_t port() const override { return port_; }
  std::size_t open_connections() const override { return connections_.load(); }

  void start() override {
    asio::co_spawn(acceptor_.get_executor(), accept_loop(shared_from_this()), asio::detached);
  }

  void stop_accepting() override {
    asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
      boost::system::error_code ignored;
      self->acceptor_.close(ignored);
    });
  }

 private:
  static asio::awaitable<void> accept_loop(std::shared_ptr<ServerImpl> self) {
    for (;;) {
      tcp::socket socket(asio::make_strand(self->io_));
      auto [ec] = co_await self->acceptor_.async_accept(socket, no_throw);
      if (ec == asio::error::operation_aborted || !self->acceptor_.is_open()) co_return;
      if (ec == asio::error::no_descriptors || ec.value() == ENFILE || ec.value() == ENOBUFS ||
          ec.value() == ENOMEM) {
        // Out of descriptors: the pending connection stays queued and the
        // next accept would fail at once, so accepting again right away
        // spins a core. Wait for connections to close instead.
        if (!self->out_of_descriptors_) {
          spdlog::warn("accept: out of descriptors (errno {}); pausing accepts", ec.value());
        }
        self->out_of_descriptors_ = true;
        asio::steady_timer pause(self->acceptor_.get_executor(), accept_backoff);
        co_await pause.async_wait(no_throw);
        continue;
      }
      if (ec) {
        spdlog::warn("accept failed: {}", ec.message());
        continue;
      }
      self->out_of_descriptors_ = false;
      // Connections that have not sent a complete head yet cost a
      // descriptor and a coroutine each, and need no secret: past the cap a
      // new one is closed at once, so idle sockets cannot exhaust the server.
      if (self->unread_heads_.load() >= self->options_.max_unread_heads) {
        boost::system::error_code ignored;
        socket.close(ignored);
        continue;
      }
      // Event frames and responses are small writes that must leave at
      // once: without this, Nagle holds one until the previous is acked.
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto executor = socket.get_executor();
      asio::co_spawn(executor, serve(self, std::move(socket)), asio::detached);
    }
  }

  static asio::awaitable<void> refuse(beast::tcp_stream& stream, unsigned version,
                                      HttpResponse response, const ServerOptions& options) {
    BeastExchange exchange(stream, HttpRequest{}, version, false, options);
    co_await exchange.respond(std::move(response));
  }

  static asio::awaitable<void> serve(std::shared_ptr<ServerImpl> self, tcp::socket socket) {
    co_await asio::this_coro::throw_if_cancelled(false);
    const std::size_t open = ++self->connections_;
    struct Release {
      std::atomic<std::size_t>& count;
      ~Release() { --count; }
    } release{self->connections_};
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    const ServerOptions& options = self->options_;
    bool refused = false;  // closing after an error response, maybe with unread input
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(options.limits.http_header_bytes));
      parser.body_limit(options.limits.http_request_body);
      // One deadline for the whole head: a client sending a byte a second
      // (slow loris) or idling on keep-alive is cut when it passes.
      stream.expires_after(options.limits.http_header_timeout);
      ++self->unread_heads_;
      auto [read_error, head_bytes] =
          co_await http::async_read_header(stream, buffer, parser, no_throw);
      --self->unread_heads_;
      if (read_error) {
        if (read_error == http::error::body_limit) {
          // Beast checks a declared Content-Length against the limit with the head.
          co_await refuse(
              stream, 11,
              error_response(413, "body_too_large",
                             "the request body is over the limit of " +
                                 std::to_string(options.limits.http_request_body) + " bytes"),
              options);
          refused = true;
        } else if (read_error == http::error::header_limit) {
          co_await refuse(stream, 11,
                          error_response(431, "headers_too_large", "request headers are too large"),
                          options);
          refused = true;
        } else if (read_error != beast::error::timeout &&
                   read_error != http::error::end_of_stream && read_error != asio::error::eof &&
                   read_error != asio::error::connection_reset) {
          co_await refuse(
              stream, 11,
              error_response(400, "malformed_request", "the request could not be parsed"), options);
          refused = true;
        }
        break;
      }
      auto& head = parser.get();
      if (open > options.max_connections) {
        HttpResponse busy =
            error_response(503, "overloaded", "too many connections; retry shortly");
        busy.headers.emplace_back("Retry-After", "1");
        co_await refuse(stream, head.version(), std::move(busy), options);
        refused = true;
        break;
      }
      if (parser.content_length() && *parser.content_length() > options.limits.http_request_body) {
        co_await refuse(
            stream, head.version(),
            error_response(413, "body_too_large",
                           "the request body is over the limit of " +
                               std::to_string(options.limits.http_request_body) + " bytes"),
            options);
        refused = true;
        break;
      }
      if (beast::iequals(head[http::field::expect], "100-continue")) {
        http::response<http::empty_body> proceed{http::status::continue_, head.version()};
        stream.expires_after(options.write_timeout);
        co_await http::async_write(stream, proceed, no_throw);
      }
      stream.expires_after(options.body_timeout);
      auto [body_error, body_bytes] = co_await http::async_read(stream, buffer, parser, no_throw);
      if (body_error) {
        if (body_error == http::error::body_limit) {
          co_await refuse(
              stream, head.version(),
              error_response(413, "body_too_large", "the request body is over the limit"), options);
          refused = true;
        } else if (body_error != beast::error::timeout) {
          co_await refuse(
              stream, head.version(),
              error_response(400, "malformed_request", "the request body could not be read"),
              options);
          refused = true;
        }
        break;
      }
      stream.expires_never();
      auto message = parser.release();
      auto request = to_request(message);
      if (!request) {
        // Anything but origin-form ("/path?query") is refused before the
        // fence or a route sees it: they all read the same decoded path.
        co_await refuse(stream, message.version(),
                        error_response(400, "bad_request_target", request.error().message),
                        options);
        refused = true;
        break;
      }
      BeastExchange exchange(stream, std::move(*request), message.version(), message.keep_alive(),
                             options);
      co_await self->dispatch(exchange);
      if (!exchange.keep_alive()) break;
    }
    boost::system::error_code ignored;
    if (refused) co_await linger(stream);
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream.close();
  }

  // After an error response the client may still be sending (a body over
  // the limit). Closing with unread input makes the kernel reset the
  // connection, which can destroy the response before the client reads it;
  // so stop sending, then read and discard for a bounded time first.
  static asio::awaitable<void> linger(beast::tcp_stream& stream) {
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream.expires_after(std::chrono::seconds(2));
    std::array<char, 65536> sink{};
    std::size_t discarded = 0;
    while (discarded < std::size_t{64} * 1024 * 1024) {
      auto [ec, n] = co_await stream.async_read_some(asio::buffer(sink), no_throw);
      if (ec) break;
      discarded += n;
    }
  }

  asio::awaitable<void> dispatch(BeastExchange& exchange) {
    HttpRequest& request = exchange.mutable_request();
    if (auto refusal = fence_.check(request)) {
      spdlog::info("refused {} {}: {}", request.method, request.path, refusal->status);
      co_await exchange.respond(std::move(*refusal));
      co_return;
    }
    auto matched = router_->match(request);
    if (auto* response = std::get_if<HttpResponse>(&matched)) {
      co_await exchange.respond(std::move(*response));
      co_return;
    }
    const Handler& handler = *std::get<const Handler*>(matched);
    std::optional<std::string> failure;
    try {
      co_await handler(exchange);
    } catch (const std::exception& error) {
      failure = error.what();
    }
    if (failure) {
      spdlog::error("{} {} failed: {}", request.method, request.path, *failure);
      if (!exchange.responded()) {
        co_await exchange.respond(
            error_response(500, "internal", "the request failed inside the server"));
      }
    } else if (!exchange.responded()) {
      co_await exchange.respond(error_response(500, "internal", "the route did not respond"));
    }
  }

  asio::io_context& io_;
  tcp::acceptor acceptor_;
  ServerOptions options_;
  Fence fence_;
  std::shared_ptr<const Router> router_;
  std::uint16_t port_ = 0;
  std::atomic<std::size_t> connections_{0};
  std::atomic<std::size_t> unread_heads_{0};  // connections waiting for a request head
  bool out_of_descriptors_ = false;           // accept loop only
};

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::listen(asio::io_context& io, ServerOptions options,
                                                       Fence fence,
                                                       std::shared_ptr<const Router> router) {
  auto server =
      std::make_shared<ServerImpl>(io, std::move(options), std::move(fence), std::move(router));
  AVA_TRY_VOID(server->bind());
  // The caller holds a unique_ptr to a handle; coroutines keep the shared state.
  struct Handle final : HttpServer {
    std::shared_ptr<ServerImpl> impl;
    std::uint16_t port() const override { return impl->port(); }
    void start() override { impl->start(); }
    void stop_accepting() override { impl->stop_accepting(); }
    std::size_t open_connections() const override { return impl->open_connections(); }
  };
  auto handle = std::make_unique<Handle>();
  handle->impl = std::move(server);
  return std::unique_ptr<HttpServer>(std::move(handle));
}

}  // namespace ava::httpd
