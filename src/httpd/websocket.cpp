// WebSockets on Beast, kept in this one translation unit for build time.
#include "httpd/websocket.hpp"

#include <chrono>
#include <string>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/websocket.hpp>

namespace ava::httpd {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
constexpr auto no_throw = asio::as_tuple(asio::use_awaitable);

class BeastWebSocket final : public WebSocket {
 public:
  explicit BeastWebSocket(beast::tcp_stream& stream) : socket_(stream) {}

  asio::awaitable<Result<void>> accept(const HttpRequest& request, unsigned version,
                                       std::size_t max_message) {
    // Beast reads the handshake's fields from a message; the server already
    // parsed the head into `request`, so hand the same fields back.
    http::request<http::empty_body> upgrade{http::verb::get, request.target, version};
    for (const auto& [name, value] : request.headers) upgrade.set(name, value);
    // Beast's own timeouts replace the stream's: a handshake deadline, and
    // pings to an idle peer, which is dropped when it stops answering.
    beast::get_lowest_layer(socket_).expires_never();
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = std::chrono::seconds(30);
    timeouts.idle_timeout = std::chrono::seconds(60);
    timeouts.keep_alive_pings = true;
    socket_.set_option(timeouts);
    socket_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& response) { response.set(http::field::server, "ava"); }));
    socket_.read_message_max(max_message);
    socket_.auto_fragment(false);
    auto [error] = co_await socket_.async_accept(upgrade, no_throw);
    if (error)
      co_return fail(ErrorCode::invalid_argument, "WebSocket handshake: " + error.message());
    co_return Result<void>{};
  }

  asio::awaitable<Result<WebSocketMessage>> read() override {
    buffer_.clear();
    auto [error, size] = co_await socket_.async_read(buffer_, no_throw);
    if (error == websocket::error::closed)
      co_return fail(ErrorCode::cancelled, "closed by the peer");
    if (error) co_return fail(ErrorCode::unavailable, "WebSocket read: " + error.message());
    WebSocketMessage message;
    message.binary = socket_.got_binary();
    message.data = beast::buffers_to_string(buffer_.data());
    co_return message;
  }

  asio::awaitable<Result<void>> write(std::string_view data, bool binary) override {
    socket_.binary(binary);
    auto [error, size] =
        co_await socket_.async_write(asio::buffer(data.data(), data.size()), no_throw);
    if (error) co_return fail(ErrorCode::unavailable, "WebSocket write: " + error.message());
    co_return Result<void>{};
  }

  asio::awaitable<void> close(std::uint16_t code, std::string_view reason) override {
    if (!socket_.is_open()) co_return;
    // A close reason is at most 123 bytes (RFC 6455 5.5: a control frame's
    // payload is 125, two of them the code).
    websocket::close_reason why;
    why.code = code;
    const std::string_view said = reason.substr(0, 123);
    why.reason.assign(said.data(), said.size());
    co_await socket_.async_close(why, no_throw);
  }

 private:
  websocket::stream<beast::tcp_stream&> socket_;
  beast::flat_buffer buffer_;
};

}  // namespace

asio::awaitable<Result<std::unique_ptr<WebSocket>>> accept_websocket(beast::tcp_stream& stream,
                                                                     const HttpRequest& request,
                                                                     unsigned version,
                                                                     std::size_t max_message) {
  auto socket = std::make_unique<BeastWebSocket>(stream);
  auto accepted = co_await socket->accept(request, version, max_message);
  if (!accepted) co_return std::unexpected(std::move(accepted).error());
  co_return std::unique_ptr<WebSocket>(std::move(socket));
}

}  // namespace ava::httpd
