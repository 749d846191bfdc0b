// The client-side listener for sign-in redirects of a machine's backend.
#include "ava/remote/sign_in_relay.hpp"

#include <chrono>
#include <string_view>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace ava::remote {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr auto as_result = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t max_request_head = 16 * 1024;
constexpr auto read_timeout = std::chrono::seconds(10);

std::string page(int status, std::string_view text) {
  const char* reason = status == 200   ? "OK"
                       : status == 404 ? "Not Found"
                       : status == 502 ? "Bad Gateway"
                                       : "Bad Request";
  std::string body =
      "<!doctype html><meta charset=utf-8><title>Ava</title><p>" + std::string(text) + "</p>\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) +
         "\r\nConnection: close\r\nCache-Control: no-store\r\nReferrer-Policy: "
         "no-referrer\r\n\r\n" +
         body;
}

// The query of "GET /callback?QUERY HTTP/1.1"; empty for anything else.
std::string callback_query(std::string_view head) {
  std::string_view line = head.substr(0, head.find("\r\n"));
  constexpr std::string_view prefix = "GET /callback?";
  if (!line.starts_with(prefix)) return {};
  line.remove_prefix(prefix.size());
  const auto space = line.find(' ');
  if (space == std::string_view::npos || !line.substr(space + 1).starts_with("HTTP/1.")) return {};
  return std::string(line.substr(0, space));
}

}  // namespace

struct SignInRelay::State {
  State(const asio::any_io_executor& executor, Deliver hand_over)
      : acceptor(executor), deliver(std::move(hand_over)) {}
  tcp::acceptor acceptor;
  Deliver deliver;
  bool closed = false;
};

namespace {

asio::awaitable<void> serve(std::shared_ptr<SignInRelay::State> state, tcp::socket socket) {
  // One slow or idle peer cannot hold the listener: its read is bounded.
  // The timer's handler may already be queued when the read ends, so it
  // reaches the socket only through this, emptied first.
  auto target = std::make_shared<tcp::socket*>(&socket);
  asio::steady_timer deadline(socket.get_executor(), read_timeout);
  deadline.async_wait([target](boost::system::error_code error) {
    if (error || *target == nullptr) return;
    boost::system::error_code ignored;
    (*target)->close(ignored);
  });
  asio::streambuf buffer(max_request_head);
  auto [error, size] = co_await asio::async_read_until(socket, buffer, "\r\n\r\n", as_result);
  *target = nullptr;
  deadline.cancel();
  if (error) co_return;
  std::string head(asio::buffers_begin(buffer.data()),
                   asio::buffers_begin(buffer.data()) + static_cast<std::ptrdiff_t>(size));
  std::string query = callback_query(head);
  std::string answer;
  if (query.empty()) {
    answer = page(404, "Not found.");
  } else {
    auto status = co_await state->deliver(std::move(query));
    if (!status) {
      answer = page(502,
                    "Ava could not reach the machine's backend: the sign-in was not passed on."
                    " Try again once the machine is connected.");
    } else if (*status == 204) {
      answer = page(200, "Ava passed the sign-in on to the machine. You can close this tab.");
    } else {
      answer = page(400, "This sign-in link is not one Ava is waiting for.");
    }
  }
  // The browser may have gone; the outcome was already handed over.
  (void)co_await asio::async_write(socket, asio::buffer(answer), as_result);
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

}  // namespace

SignInRelay::SignInRelay(std::shared_ptr<State> state) : state_(std::move(state)) {}
SignInRelay::~SignInRelay() { close(); }

Result<std::unique_ptr<SignInRelay>> SignInRelay::listen(asio::any_io_executor executor,
                                                         Deliver deliver) {
  auto state = std::make_shared<State>(executor, std::move(deliver));
  boost::system::error_code error;
  tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), 0);
  state->acceptor.open(endpoint.protocol(), error);
  if (!error) state->acceptor.bind(endpoint, error);
  if (!error) state->acceptor.listen(8, error);
  if (error) return fail(ErrorCode::unavailable, "sign-in redirect listener: " + error.message());
  return std::unique_ptr<SignInRelay>(new SignInRelay(std::move(state)));
}

std::uint16_t SignInRelay::port() const {
  boost::system::error_code error;
  auto endpoint = state_->acceptor.local_endpoint(error);
  return error ? 0 : endpoint.port();
}

void SignInRelay::close() {
  if (state_->closed) return;
  state_->closed = true;
  boost::system::error_code ignored;
  state_->acceptor.close(ignored);
}

asio::awaitable<void> SignInRelay::run() {
  auto state = state_;
  auto executor = co_await asio::this_coro::executor;
  while (!state->closed) {
    auto [error, socket] = co_await state->acceptor.async_accept(as_result);
    if (state->closed || error == asio::error::operation_aborted) co_return;
    if (error) continue;
    asio::co_spawn(executor, serve(state, std::move(socket)), asio::detached);
  }
}

}  // namespace ava::remote
