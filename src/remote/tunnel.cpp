// Local connections forwarded through SSH channels.
#include "ava/remote/tunnel.hpp"

#include <array>
#include <list>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace ava::remote {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;

namespace {
constexpr auto as_result = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t chunk_size = 32 * 1024;
}  // namespace

struct Tunnel::State {
  State(const asio::any_io_executor& executor, MachineShell& ssh, std::uint16_t port)
      : acceptor(executor), keepalive(executor), session(ssh), remote_port(port) {}
  tcp::acceptor acceptor;
  asio::steady_timer keepalive;
  MachineShell& session;
  std::uint16_t remote_port;
  std::list<tcp::socket*> connections;  // open ones, closed by close()
  bool closed = false;
  bool lost = false;  // the SSH connection failed
};

namespace {

// Local -> machine, until the local side ends its stream.
asio::awaitable<void> upstream(tcp::socket& local, MachineStream& channel) {
  std::array<char, chunk_size> buffer{};
  for (;;) {
    auto [error, n] = co_await local.async_read_some(asio::buffer(buffer), as_result);
    if (error) {
      if (error == asio::error::eof)
        (void)co_await channel.send_eof();
      else
        local.close(error);
      co_return;
    }
    if (!co_await channel.write_all(std::string_view(buffer.data(), n))) {
      local.close(error);
      co_return;
    }
  }
}

// Machine -> local, as soon as bytes arrive (an SSE event is not held back).
asio::awaitable<void> downstream(tcp::socket& local, MachineStream& channel) {
  std::array<char, chunk_size> buffer{};
  boost::system::error_code ignored;
  for (;;) {
    auto n = co_await channel.read_some(buffer.data(), buffer.size());
    if (!n) {
      local.close(ignored);
      co_return;
    }
    if (*n == 0) {
      local.shutdown(tcp::socket::shutdown_send, ignored);
      co_return;
    }
    auto [error, written] =
        co_await asio::async_write(local, asio::buffer(buffer.data(), *n), as_result);
    if (error) {
      local.close(ignored);
      co_return;
    }
  }
}

asio::awaitable<void> forward(std::shared_ptr<Tunnel::State> state, tcp::socket local) {
  auto it = state->connections.insert(state->connections.end(), &local);
  auto channel = co_await state->session.open_forward("127.0.0.1", state->remote_port);
  if (channel) {
    co_await (upstream(local, **channel) && downstream(local, **channel));
  }
  boost::system::error_code ignored;
  local.close(ignored);
  state->connections.erase(it);
  // A connection found the SSH connection dead: end run() now rather than
  // at the next accept or keepalive, so the client reconnects at once.
  if (state->session.broken() && !state->closed && !state->lost) {
    state->lost = true;
    state->acceptor.close(ignored);
  }
}

}  // namespace

Tunnel::Tunnel(std::shared_ptr<State> state) : state_(std::move(state)) {}
Tunnel::~Tunnel() { close(); }

Result<std::unique_ptr<Tunnel>> Tunnel::listen(asio::any_io_executor executor,
                                               MachineShell& session, std::uint16_t remote_port,
                                               std::uint16_t local_port) {
  auto state = std::make_shared<State>(executor, session, remote_port);
  boost::system::error_code error;
  tcp::endpoint endpoint(asio::ip::make_address_v4("127.0.0.1"), local_port);
  state->acceptor.open(endpoint.protocol(), error);
  if (!error) state->acceptor.set_option(tcp::acceptor::reuse_address(true), error);
  if (!error) state->acceptor.bind(endpoint, error);
  if (!error) state->acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return fail(ErrorCode::unavailable, "cannot listen on 127.0.0.1:" + std::to_string(local_port) +
                                            ": " + error.message());
  }
  return std::unique_ptr<Tunnel>(new Tunnel(std::move(state)));
}

std::uint16_t Tunnel::local_port() const {
  boost::system::error_code error;
  auto endpoint = state_->acceptor.local_endpoint(error);
  return error ? 0 : endpoint.port();
}

void Tunnel::set_remote_port(std::uint16_t port) { state_->remote_port = port; }

std::size_t Tunnel::open_connections() const { return state_->connections.size(); }

void Tunnel::close() {
  if (state_->closed) return;
  state_->closed = true;
  boost::system::error_code ignored;
  state_->acceptor.close(ignored);
  state_->keepalive.cancel();
  for (auto* socket : state_->connections) socket->close(ignored);
}

asio::awaitable<Result<void>> Tunnel::run() {
  auto state = state_;
  auto executor = co_await asio::this_coro::executor;
  // Keepalives: a dead connection is noticed without traffic, and NATs and
  // firewalls keep an idle one open.
  asio::co_spawn(
      executor,
      [state]() -> asio::awaitable<void> {
        while (!state->closed) {
          auto next = state->session.keepalive();
          if (!next || state->session.broken()) {
            state->lost = true;
            boost::system::error_code ignored;
            state->acceptor.close(ignored);
            co_return;
          }
          state->keepalive.expires_after(std::chrono::seconds(std::max(*next, 1)));
          co_await state->keepalive.async_wait(as_result);
        }
      },
      asio::detached);
  for (;;) {
    auto [error, socket] = co_await state->acceptor.async_accept(as_result);
    if (state->closed) co_return Result<void>{};
    if (state->lost || state->session.broken()) {
      close();
      co_return fail(ErrorCode::unavailable, "the SSH connection to the machine was lost");
    }
    if (error) {
      if (error == asio::error::operation_aborted) co_return Result<void>{};
      continue;  // a connection that failed before it was accepted
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    asio::co_spawn(executor, forward(state, std::move(socket)), asio::detached);
  }
}

}  // namespace ava::remote
