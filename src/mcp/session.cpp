#include "ava/mcp/session.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/json.hpp"
#include "ava/base/version.hpp"
#include "ava/mcp/jsonrpc.hpp"

namespace ava::mcp {

namespace asio = boost::asio;
using nlohmann::json;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// A request waiting for its answer. The reader fills outcome and cancels
// wake; the deadline is wake's expiry; the caller's cancellation cancels
// wake too, leaving outcome empty.
struct Session::Pending {
  explicit Pending(const Strand& strand) : wake(strand) {}
  asio::steady_timer wake;
  std::optional<Result<json>> outcome;
  ProgressCallback on_progress;
  std::string token;  // progress token, as JSON text
};

namespace {

spdlog::level::level_enum log_level(std::string_view mcp_level) {
  if (mcp_level == "debug") return spdlog::level::debug;
  if (mcp_level == "info" || mcp_level == "notice") return spdlog::level::info;
  if (mcp_level == "warning") return spdlog::level::warn;
  return spdlog::level::err;  // error, critical, alert, emergency
}

std::string as_text(const json& value) {
  return value.is_string() ? value.get<std::string>()
                           : value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

Session::Session(const asio::any_io_executor& executor, std::unique_ptr<Transport> transport,
                 SessionOptions options)
    : strand_(asio::make_strand(executor)),
      transport_(std::move(transport)),
      options_(std::move(options)),
      description_(transport_->describe()) {
  if (options_.client_version.empty()) options_.client_version = std::string(base::version());
}

Session::~Session() = default;

asio::awaitable<Result<std::shared_ptr<Session>>> Session::connect(
    asio::any_io_executor executor, std::unique_ptr<Transport> transport, SessionOptions options) {
  std::shared_ptr<Session> session(new Session(executor, std::move(transport), std::move(options)));
  auto start = [](std::shared_ptr<Session> self) -> asio::awaitable<Result<void>> {
    co_await asio::this_coro::throw_if_cancelled(false);
    std::weak_ptr<Session> weak = self;
    TransportEvents events{.on_message =
                               [weak](const json& message) {
                                 if (auto alive = weak.lock()) alive->on_message(message);
                               },
                           .on_request_failed =
                               [weak](const json& id, Error reason) {
                                 if (auto alive = weak.lock())
                                   alive->on_request_failed(id, std::move(reason));
                               },
                           .on_closed =
                               [weak](Error reason) {
                                 if (auto alive = weak.lock()) alive->on_closed(std::move(reason));
                               }};
    AVA_CO_TRY_VOID(co_await self->transport_->start(self->strand_, std::move(events)));
    auto initialized = co_await self->initialize();
    if (!initialized) {
      co_await self->transport_->close();
      self->alive_ = false;
    }
    co_return initialized;
  };
  auto started = asio::co_spawn(session->strand_, start(session), asio::use_awaitable);
  auto result = co_await std::move(started);
  if (!result) co_return std::unexpected(std::move(result).error());
  co_return session;
}

asio::awaitable<Result<void>> Session::initialize() {
  json params{
      {"protocolVersion", protocol_versions[0]},
      // Only what the owner handles (options_.on_request); by default
      // nothing: no roots, sampling, elicitation or tasks.
      {"capabilities", options_.capabilities},
      {"clientInfo", {{"name", options_.client_name}, {"version", options_.client_version}}}};
  RequestOptions request_options{.timeout = options_.initialize_timeout};
  std::string method = "initialize";
  auto answer = co_await request_on_strand(std::move(method), std::move(params), request_options);
  if (!answer) {
    co_return std::unexpected(
        std::move(answer).error().with_context(fmt::format("initialize {}", description_)));
  }
  const json& result = *answer;
  if (!result.is_object() || !result.contains("protocolVersion") ||
      !result["protocolVersion"].is_string()) {
    co_return fail(ErrorCode::protocol,
                   fmt::format("initialize {}: the answer has no protocolVersion", description_));
  }
  server_.protocol_version = result["protocolVersion"].get<std::string>();
  if (std::ranges::find(protocol_versions, server_.protocol_version) ==
      std::end(protocol_versions)) {
    co_return fail(ErrorCode::unsupported,
                   fmt::format("initialize {}: the server wants protocol version {}, which Ava "
                               "does not speak",
                               description_, server_.protocol_version));
  }
  if (const auto info = result.find("serverInfo"); info != result.end() && info->is_object()) {
    server_.name = base::json_value(*info, "name", "");
    server_.title = base::json_value(*info, "title", "");
    server_.version = base::json_value(*info, "version", "");
  }
  if (const auto caps = result.find("capabilities"); caps != result.end() && caps->is_object()) {
    server_.capabilities = *caps;
  }
  server_.instructions = base::json_value(result, "instructions", "");
  if (!server_.name.empty()) description_ = fmt::format("{} ({})", server_.name, description_);
  transport_->initialized(server_.protocol_version);
  json initialized = jsonrpc::make_notification("notifications/initialized", {});
  co_return co_await transport_->send(std::move(initialized));
}

asio::awaitable<Result<json>> Session::request(std::string method, json params,
                                               RequestOptions options) {
  auto self = shared_from_this();
  auto on_strand = [](std::shared_ptr<Session> session, std::string name, json arguments,
                      RequestOptions request_options) -> asio::awaitable<Result<json>> {
    // First, before any early return: see TOOLCHAIN (a co_spawned task
    // cancelled before its first step terminates the process).
    co_await asio::this_coro::throw_if_cancelled(false);
    co_return co_await session->request_on_strand(std::move(name), std::move(arguments),
                                                  std::move(request_options));
  };
  auto spawned = asio::co_spawn(
      strand_, on_strand(self, std::move(method), std::move(params), std::move(options)),
      asio::use_awaitable);
  co_return co_await std::move(spawned);
}

asio::awaitable<Result<json>> Session::request_on_strand(std::string method, json params,
                                                         RequestOptions options) {
  co_await asio::this_coro::throw_if_cancelled(false);
  if (closed_) co_return std::unexpected(Error(*closed_));
  if (closing_) co_return fail(ErrorCode::unavailable, fmt::format("{} is closed", description_));
  const std::int64_t id = next_id_++;
  auto pending = std::make_shared<Pending>(strand_);
  pending->wake.expires_after(options.timeout);
  if (options.on_progress) {
    // The token is ours to choose; the request id keeps it unique.
    const json token = fmt::format("ava-{}", id);
    if (!params.is_object()) params = json::object();
    params["_meta"]["progressToken"] = token;
    pending->token = token.dump();
    pending->on_progress = std::move(options.on_progress);
    progress_tokens_[pending->token] = id;
  }
  pending_[id] = pending;
  auto forget = [&] {
    pending_.erase(id);
    if (!pending->token.empty()) progress_tokens_.erase(pending->token);
  };
  json message = jsonrpc::make_request(id, method, std::move(params));
  auto sent = co_await transport_->send(std::move(message));
  if (!sent) {
    forget();
    co_return std::unexpected(std::move(sent).error());
  }
  if (!pending->outcome) {
    auto [error] = co_await pending->wake.async_wait(use_tuple);
    if (!pending->outcome) {
      forget();
      const bool timed_out = !error;
      // Tell the server to stop; whatever it still sends for this id is dropped.
      json cancel{{"requestId", id},
                  {"reason", timed_out ? "timed out" : "cancelled by the client"}};
      if (!closed_ && method != "initialize") {
        json notification =
            jsonrpc::make_notification("notifications/cancelled", std::move(cancel));
        std::ignore = co_await transport_->send(std::move(notification));
      }
      transport_->cancel_request(json(id));
      if (timed_out) {
        co_return fail(ErrorCode::timeout, fmt::format("{}: {} timed out after {} ms", description_,
                                                       method, options.timeout.count()));
      }
      co_return fail(ErrorCode::cancelled, fmt::format("{}: {} cancelled", description_, method));
    }
  }
  forget();
  auto outcome = std::move(pending->outcome);
  if (!outcome) co_return fail(ErrorCode::internal, "request woke without an outcome");
  co_return std::move(*outcome);
}

asio::awaitable<Result<void>> Session::notify(std::string method, json params) {
  auto self = shared_from_this();
  auto on_strand = [](std::shared_ptr<Session> session, std::string name,
                      json arguments) -> asio::awaitable<Result<void>> {
    co_await asio::this_coro::throw_if_cancelled(false);
    if (session->closed_) co_return std::unexpected(Error(*session->closed_));
    json notification = jsonrpc::make_notification(name, std::move(arguments));
    co_return co_await session->transport_->send(std::move(notification));
  };
  auto spawned = asio::co_spawn(strand_, on_strand(self, std::move(method), std::move(params)),
                                asio::use_awaitable);
  co_return co_await std::move(spawned);
}

asio::awaitable<void> Session::close() {
  auto self = shared_from_this();
  auto on_strand = [](std::shared_ptr<Session> session) -> asio::awaitable<void> {
    co_await asio::this_coro::throw_if_cancelled(false);
    if (session->closing_) co_return;
    session->closing_ = true;
    session->alive_ = false;
    for (auto& [id, pending] : session->pending_) {
      pending->outcome =
          fail(ErrorCode::unavailable, fmt::format("{} closed", session->description_));
      pending->wake.cancel();
    }
    session->pending_.clear();
    session->progress_tokens_.clear();
    co_await session->transport_->close();
  };
  auto spawned = asio::co_spawn(strand_, on_strand(self), asio::use_awaitable);
  co_await std::move(spawned);
}

void Session::on_closed(Error reason) {
  spdlog::warn("mcp {}: {}", description_, reason.message);
  alive_ = false;
  for (auto& [id, pending] : pending_) {
    pending->outcome = std::unexpected(Error(reason));
    pending->wake.cancel();
  }
  pending_.clear();
  progress_tokens_.clear();
  closed_ = std::move(reason);
}

void Session::on_request_failed(const json& id, Error reason) {
  if (!id.is_number_integer()) return;
  const auto found = pending_.find(id.get<std::int64_t>());
  if (found == pending_.end()) return;
  found->second->outcome = std::unexpected(std::move(reason));
  found->second->wake.cancel();
  pending_.erase(found);
}

void Session::on_message(const json& value) {
  std::string what;
  try {
    handle_message(value);
    return;
  } catch (const std::exception& error) {
    what = error.what();
  } catch (...) {
    what = "unknown exception";
  }
  spdlog::error("mcp {}: a message could not be handled: {}", description_, what);
  const auto id = base::json_field<std::int64_t>(value, "id");
  const auto found = id ? pending_.find(*id) : pending_.end();
  if (found == pending_.end()) return;
  found->second->outcome =
      fail(ErrorCode::protocol, fmt::format("{}: the answer could not be handled", description_));
  found->second->wake.cancel();
  pending_.erase(found);
}

void Session::handle_message(const json& value) {
  auto classified = jsonrpc::classify(value);
  if (!classified) {
    // The empty priming events of an HTTP stream and replays land here too.
    spdlog::debug("mcp {}: ignored message: {}", description_, classified.error().message);
    return;
  }
  auto& message = *classified;
  using Kind = jsonrpc::Message::Kind;
  switch (message.kind) {
    case Kind::request: on_server_request(message.method, message.id, message.params); return;
    case Kind::notification: on_server_notification(message.method, message.params); return;
    case Kind::response:
    case Kind::error: break;
  }
  if (!message.id.is_number_integer()) {
    spdlog::debug("mcp {}: answer with a foreign id {}", description_, message.id.dump());
    return;
  }
  const auto found = pending_.find(message.id.get<std::int64_t>());
  if (found == pending_.end()) return;  // late: timed out or cancelled
  auto& pending = *found->second;
  if (message.kind == Kind::response) {
    pending.outcome = std::move(message.result);
  } else {
    pending.outcome = fail(
        ErrorCode::protocol,
        fmt::format("{}: error {}: {}", description_, message.error.code, message.error.message));
  }
  pending.wake.cancel();
  pending_.erase(found);
}

void Session::on_server_request(const std::string& method, const json& id, const json& params) {
  if (method == "ping") {
    respond(jsonrpc::make_response(id, json::object()));
    return;
  }
  if (options_.on_request) {
    if (auto result = options_.on_request(method, params)) {
      respond(jsonrpc::make_response(id, std::move(*result)));
      return;
    }
  }
  // Not advertised (or declined by the owner): roots/list, sampling and
  // elicitation requests are not ours to serve.
  respond(jsonrpc::make_error(id, jsonrpc::method_not_found,
                              fmt::format("Method not found: {}", method)));
}

void Session::on_server_notification(const std::string& method, const json& params) {
  if (method == "notifications/progress" && params.is_object()) {
    const auto token = params.find("progressToken");
    if (token == params.end()) return;
    const auto id = progress_tokens_.find(token->dump());
    if (id == progress_tokens_.end()) return;  // late, or not ours
    const auto pending = pending_.find(id->second);
    if (pending == pending_.end() || !pending->second->on_progress) return;
    Progress progress;
    progress.progress = base::json_value(params, "progress", 0.0);
    progress.total = base::json_field<double>(params, "total");
    progress.message = base::json_value(params, "message", "");
    pending->second->on_progress(progress);
    return;
  }
  if (method == "notifications/message" && params.is_object()) {
    const auto logger = base::json_value(params, "logger", "");
    const auto data = params.contains("data") ? as_text(params["data"]) : std::string();
    spdlog::log(log_level(base::json_value(params, "level", "info")), "mcp {}: {}{}{}",
                description_, logger, logger.empty() ? "" : ": ", data);
    return;
  }
  if (options_.on_notification) options_.on_notification(method, params);
}

void Session::respond(json message) {
  auto self = shared_from_this();
  auto send = [](std::shared_ptr<Session> session, json answer) -> asio::awaitable<void> {
    co_await asio::this_coro::throw_if_cancelled(false);
    if (session->closed_ || session->closing_) co_return;
    if (auto sent = co_await session->transport_->send(std::move(answer)); !sent) {
      spdlog::debug("mcp {}: cannot answer: {}", session->description_, sent.error().message);
    }
  };
  asio::co_spawn(strand_, send(self, std::move(message)), asio::detached);
}

}  // namespace ava::mcp
