#include "ava/mcp/server.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ava::mcp {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

ServerConnection::ServerConnection(const asio::any_io_executor& executor, ServerConfig config)
    : executor_(executor), strand_(asio::make_strand(executor)), config_(std::move(config)) {}

ServerConnection::~ServerConnection() = default;

std::shared_ptr<ServerConnection> ServerConnection::create(const asio::any_io_executor& executor,
                                                           ServerConfig config) {
  return std::shared_ptr<ServerConnection>(new ServerConnection(executor, std::move(config)));
}

asio::awaitable<Result<std::shared_ptr<Session>>> ServerConnection::session() {
  auto on_strand = [](std::shared_ptr<ServerConnection> self)
      -> asio::awaitable<Result<std::shared_ptr<Session>>> {
    co_await asio::this_coro::throw_if_cancelled(false);
    co_return co_await self->session_on_strand();
  };
  auto spawned = asio::co_spawn(strand_, on_strand(shared_from_this()), asio::use_awaitable);
  co_return co_await std::move(spawned);
}

void ServerConnection::note_failure(Error reason) {
  // The first failure restarts at once (a crash is often a one-off); then
  // backoff_initial, doubling, up to backoff_max.
  ++failures_;
  std::chrono::milliseconds delay{0};
  if (failures_ > 1) {
    delay = std::min<std::chrono::milliseconds>(
        config_.backoff_initial * (1LL << std::min(failures_ - 2, 16)), config_.backoff_max);
  }
  retry_at_ = Clock::now() + delay;
  spdlog::warn("mcp {}: {}; next start in {} ms", config_.name, reason.message, delay.count());
  last_error_ = std::move(reason);
}

asio::awaitable<Result<std::shared_ptr<Session>>> ServerConnection::session_on_strand() {
  // One connect at a time; later callers wait for its outcome.
  while (connecting_) {
    asio::steady_timer wait(strand_, Clock::time_point::max());
    waiting_.push_back(&wait);
    co_await wait.async_wait(asio::as_tuple(asio::use_awaitable));
    std::erase(waiting_, &wait);
  }
  if (closed_)
    co_return fail(ErrorCode::unavailable, fmt::format("MCP server {} was closed", config_.name));
  if (session_ && session_->alive()) co_return session_;
  if (session_) {
    // It died since the last use.
    auto dead = std::exchange(session_, nullptr);
    note_failure(Error{ErrorCode::unavailable, fmt::format("{} stopped", dead->describe())});
    co_await dead->close();
  }
  if (last_error_ && Clock::now() < retry_at_) {
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(retry_at_ - Clock::now());
    co_return fail(ErrorCode::unavailable,
                   fmt::format("MCP server {} is unavailable ({}); the next start is in {:.1f} s",
                               config_.name, last_error_->message,
                               static_cast<double>(wait.count()) / 1000.0));
  }
  connecting_ = true;
  ++started_;
  // The server's list_changed marks the cached tool list stale; the
  // configured callback still hears every notification.
  SessionOptions options = config_.session;
  options.on_notification = [weak = weak_from_this(), forward = config_.session.on_notification](
                                const std::string& method, const nlohmann::json& params) {
    if (method == "notifications/tools/list_changed") {
      if (auto self = weak.lock()) {
        asio::post(self->strand_, [self] {
          self->tools_.reset();
          ++self->tools_generation_;
        });
      }
    }
    if (forward) forward(method, params);
  };
  auto connecting = Session::connect(executor_, config_.make_transport(), std::move(options));
  auto connected = co_await std::move(connecting);
  connecting_ = false;
  for (auto* waiter : waiting_) waiter->cancel();
  if (!connected) {
    note_failure(connected.error());
    co_return std::unexpected(std::move(connected).error());
  }
  session_ = *connected;
  tools_.reset();  // a new session lists again
  co_return session_;
}

asio::awaitable<Result<std::vector<ToolInfo>>> ServerConnection::tools() {
  auto on_strand =
      [](std::shared_ptr<ServerConnection> self) -> asio::awaitable<Result<std::vector<ToolInfo>>> {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto session = co_await self->session_on_strand();
    if (!session) co_return std::unexpected(std::move(session).error());
    if (self->tools_) co_return *self->tools_;
    const std::uint64_t generation = self->tools_generation_.load();
    const ListOptions options;
    auto listed = co_await list_tools(**session, options);
    if (!listed) co_return std::unexpected(std::move(listed).error());
    // A change announced while listing leaves the cache empty: list again next time.
    if (generation == self->tools_generation_) self->tools_ = *listed;
    co_return std::move(*listed);
  };
  auto spawned = asio::co_spawn(strand_, on_strand(shared_from_this()), asio::use_awaitable);
  co_return co_await std::move(spawned);
}

void ServerConnection::report_success() {
  asio::post(strand_, [self = shared_from_this()] {
    self->failures_ = 0;
    self->last_error_.reset();
  });
}

asio::awaitable<void> ServerConnection::close() {
  auto on_strand = [](std::shared_ptr<ServerConnection> self) -> asio::awaitable<void> {
    co_await asio::this_coro::throw_if_cancelled(false);
    self->closed_ = true;
    if (auto session = std::exchange(self->session_, nullptr)) co_await session->close();
  };
  auto spawned = asio::co_spawn(strand_, on_strand(shared_from_this()), asio::use_awaitable);
  co_await std::move(spawned);
}

}  // namespace ava::mcp
