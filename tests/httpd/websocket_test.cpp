// WebSocket upgrades on the real HTTP server: a route that echoes, spoken to
// by Beast's client over loopback.
#include <memory>
#include <string>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <catch2/catch.hpp>

#include "ava/httpd/http_server.hpp"

using namespace ava;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t max_message = 1024;

// Echoes each message with its kind until "bye", which it answers by closing.
asio::awaitable<void> echo(httpd::Exchange& exchange) {
  if (!httpd::is_websocket_upgrade(exchange.request())) {
    co_await exchange.respond(httpd::error_response(400, "not_upgrade", "send an upgrade"));
    co_return;
  }
  auto socket = co_await exchange.accept_websocket(max_message);
  if (!socket) co_return;
  for (;;) {
    auto message = co_await (*socket)->read();
    if (!message) co_return;
    if (message->data == "bye") {
      co_await (*socket)->close(1000, "bye to you");
      co_return;
    }
    const std::string answer = (message->binary ? "binary:" : "text:") + message->data;
    if (!co_await (*socket)->write(answer, message->binary)) co_return;
  }
}

struct Running {
  asio::io_context io;
  std::unique_ptr<httpd::HttpServer> server;
  std::thread thread;

  Running() {
    auto router = std::make_shared<httpd::Router>();
    router->add("GET", "/ws", echo);
    auto listening = httpd::HttpServer::listen(io, {}, httpd::Fence{.token = "secret"}, router);
    REQUIRE(listening);
    server = std::move(*listening);
    server->start();
    thread = std::thread([this] { io.run(); });
  }
  ~Running() {
    io.stop();
    thread.join();
  }
  std::string host() const { return "127.0.0.1:" + std::to_string(server->port()); }
};

// A client socket connected to the server, before its handshake.
struct Client {
  asio::io_context io;
  websocket::stream<tcp::socket> socket{io};

  explicit Client(const Running& running) {
    socket.next_layer().connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), running.server->port()));
  }
  // The handshake with these headers; the HTTP response when it is refused.
  beast::error_code handshake(const Running& running, const std::string& origin, bool with_token,
                              websocket::response_type& response) {
    socket.set_option(websocket::stream_base::decorator([&](websocket::request_type& request) {
      if (with_token) request.set(beast::http::field::authorization, "Bearer secret");
      if (!origin.empty()) request.set(beast::http::field::origin, origin);
    }));
    beast::error_code ec;
    socket.handshake(response, running.host(), "/ws", ec);
    return ec;
  }
};

}  // namespace

TEST_CASE("a route accepts a WebSocket and its messages go both ways, text and binary",
          "[httpd][websocket]") {
  Running running;
  Client client(running);
  websocket::response_type response;
  REQUIRE_FALSE(client.handshake(running, "http://" + running.host(), true, response));
  CHECK(response.result_int() == 101);

  client.socket.text(true);
  client.socket.write(asio::buffer(std::string("hello")));
  beast::flat_buffer buffer;
  client.socket.read(buffer);
  CHECK(beast::buffers_to_string(buffer.data()) == "text:hello");
  CHECK(client.socket.got_text());

  buffer.clear();
  client.socket.binary(true);
  client.socket.write(asio::buffer(std::string("\x01\x02", 2)));
  client.socket.read(buffer);
  CHECK(beast::buffers_to_string(buffer.data()) == std::string("binary:\x01\x02", 9));
  CHECK(client.socket.got_binary());

  client.socket.text(true);
  client.socket.write(asio::buffer(std::string("bye")));
  buffer.clear();
  beast::error_code ec;
  client.socket.read(buffer, ec);
  CHECK(ec == websocket::error::closed);
  CHECK(client.socket.reason().code == 1000);
  const auto& said = client.socket.reason().reason;
  CHECK(std::string(said.data(), said.size()) == "bye to you");
}

TEST_CASE("a message over the route's limit ends the connection", "[httpd][websocket]") {
  Running running;
  Client client(running);
  websocket::response_type response;
  REQUIRE_FALSE(client.handshake(running, "", true, response));
  client.socket.binary(true);
  client.socket.write(asio::buffer(std::string(max_message + 1, 'x')));
  beast::flat_buffer buffer;
  beast::error_code ec;
  client.socket.read(buffer, ec);
  CHECK(ec);
  CHECK(client.socket.reason().code == websocket::close_code::too_big);
}

TEST_CASE("the fence stands before the handshake: no secret, another origin",
          "[httpd][websocket]") {
  Running running;
  {
    Client client(running);
    websocket::response_type response;
    CHECK(client.handshake(running, "", false, response));
    CHECK(response.result_int() == 401);
  }
  {
    Client client(running);
    websocket::response_type response;
    CHECK(client.handshake(running, "http://evil.example", true, response));
    CHECK(response.result_int() == 403);
  }
}

TEST_CASE("an upgrade is GET with Upgrade: websocket and an upgrade token in Connection",
          "[httpd][websocket]") {
  httpd::HttpRequest request;
  request.method = "GET";
  request.headers["upgrade"] = "WebSocket";
  request.headers["connection"] = "keep-alive, Upgrade";
  CHECK(httpd::is_websocket_upgrade(request));
  request.headers["connection"] = "keep-alive,upgrade ";
  CHECK(httpd::is_websocket_upgrade(request));
  request.headers["connection"] = "keep-alive, upgrader";
  CHECK_FALSE(httpd::is_websocket_upgrade(request));
  request.headers["connection"] = "upgrade";
  request.headers["upgrade"] = "h2c";
  CHECK_FALSE(httpd::is_websocket_upgrade(request));
  request.headers["upgrade"] = "websocket";
  request.method = "POST";
  CHECK_FALSE(httpd::is_websocket_upgrade(request));
}
