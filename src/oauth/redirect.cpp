// The loopback redirect listener (RFC 8252 §7.3): 127.0.0.1 on an
// ephemeral port; the browser (or the test opener) is sent to
// http://127.0.0.1:<port>/callback with the code and state.

#include <memory>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t max_request_head = std::size_t{16} * 1024;

std::string page(int status, std::string_view text) {
  const auto* reason = status == 200 ? "OK" : (status == 400 ? "Bad Request" : "Not Found");
  const auto body =
      fmt::format("<!doctype html><meta charset=utf-8><title>Ava</title><p>{}</p>\n", text);
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n"
      "Connection: close\r\nCache-Control: no-store\r\n\r\n{}",
      status, reason, body.size(), body);
}

class Listener final : public RedirectListener {
 public:
  Listener(const asio::any_io_executor& executor, std::chrono::milliseconds read_timeout)
      : acceptor_(executor), read_timeout_(read_timeout) {}

  Result<void> bind() {
    boost::system::error_code error;
    const tcp::endpoint where(asio::ip::make_address_v4("127.0.0.1"), 0);
    acceptor_.open(where.protocol(), error);
    if (!error) acceptor_.bind(where, error);
    if (!error) acceptor_.listen(8, error);
    if (error) return fail(ErrorCode::io, "redirect listener: " + error.message());
    port_ = acceptor_.local_endpoint().port();
    return {};
  }

  std::string redirect_uri() const override {
    return fmt::format("http://127.0.0.1:{}/callback", port_);
  }

  asio::awaitable<Result<Params>> wait(std::string state) override {
    for (;;) {
      auto [error, socket] = co_await acceptor_.async_accept(use_tuple);
      // Closed by cancel(), before or during the accept.
      if (error == asio::error::operation_aborted || !acceptor_.is_open()) {
        co_return fail(ErrorCode::cancelled, "the sign-in was stopped");
      }
      if (error) co_return fail(ErrorCode::io, "redirect listener: " + error.message());
      auto params = co_await serve(socket, state);
      if (!acceptor_.is_open()) co_return fail(ErrorCode::cancelled, "the sign-in was stopped");
      if (params) co_return std::move(*params);
    }
  }

  void cancel() override {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    if (current_ != nullptr) current_->close(ignored);
  }

 private:
  // One connection, bounded by read_timeout_: the callback's parameters
  // when it carries `state`, nothing for anything else. The socket is
  // reachable from cancel() while it is served.
  asio::awaitable<std::optional<Params>> serve(tcp::socket& socket, const std::string& state) {
    current_ = &socket;
    // The timer's handler may already be queued when the connection ends,
    // so it reaches the socket only through this, emptied first.
    auto target = std::make_shared<tcp::socket*>(&socket);
    asio::steady_timer deadline(socket.get_executor(), read_timeout_);
    deadline.async_wait([target](boost::system::error_code error) {
      // A peer that idles gets its connection closed; the read then fails.
      if (error || *target == nullptr) return;
      boost::system::error_code ignored;
      (*target)->close(ignored);
    });
    std::optional<Params> out;
    if (auto query = co_await read_target(socket)) {
      auto params = base::parse_query(*query);
      if (!params) {
        co_await respond(socket, page(400, "This sign-in link is malformed."));
      } else if (param(*params, "state") != state) {
        co_await respond(socket, page(400, "This sign-in link is not the one Ava expects."));
      } else {
        const bool refused = !param(*params, "error").empty();
        co_await respond(socket, page(200, refused ? "Sign-in was refused. You can close this tab."
                                                   : "Ava is signed in. You can close this tab."));
        out = std::move(*params);
      }
    }
    *target = nullptr;
    deadline.cancel();
    current_ = nullptr;
    co_return out;
  }

  // The query of a GET /callback request, or nothing for anything else.
  asio::awaitable<std::optional<std::string>> read_target(tcp::socket& socket) {
    asio::streambuf buffer(max_request_head);
    auto [error, size] = co_await asio::async_read_until(socket, buffer, "\r\n\r\n", use_tuple);
    if (error) co_return std::nullopt;
    std::string head(asio::buffers_begin(buffer.data()),
                     asio::buffers_begin(buffer.data()) + static_cast<std::ptrdiff_t>(size));
    const auto line = head.substr(0, head.find("\r\n"));
    const auto first = line.find(' ');
    const auto last = line.rfind(' ');
    if (line.substr(0, first) != "GET" || first == last) {
      co_await respond(socket, page(404, "Not found."));
      co_return std::nullopt;
    }
    const auto target = line.substr(first + 1, last - first - 1);
    const auto mark = target.find('?');
    if (target.substr(0, mark) != "/callback" || mark == std::string::npos) {
      co_await respond(socket, page(404, "Not found."));
      co_return std::nullopt;
    }
    co_return target.substr(mark + 1);
  }

  static asio::awaitable<void> respond(tcp::socket& socket, std::string text) {
    co_await asio::async_write(socket, asio::buffer(text), use_tuple);
    boost::system::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
  }

  tcp::acceptor acceptor_;
  std::chrono::milliseconds read_timeout_;
  tcp::socket* current_ = nullptr;  // the connection being served
  std::uint16_t port_ = 0;
};

}  // namespace

Result<std::unique_ptr<RedirectListener>> RedirectListener::open(
    const asio::any_io_executor& executor, std::chrono::milliseconds read_timeout) {
  auto listener = std::make_unique<Listener>(executor, read_timeout);
  AVA_TRY_VOID(listener->bind());
  return std::unique_ptr<RedirectListener>(std::move(listener));
}

}  // namespace ava::oauth
