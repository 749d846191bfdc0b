#include "ava/mcp/http_transport.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/json.hpp"
#include "ava/base/log.hpp"
#include "ava/base/text.hpp"
#include "ava/mcp/jsonrpc.hpp"
#include "ava/transport/url.hpp"
#include "mcp/http_reader.hpp"

namespace ava::mcp {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using transport::HttpClient;
using transport::HttpHeader;
using transport::HttpRequest;
using transport::HttpResponse;
using Clock = std::chrono::steady_clock;
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t max_idle_clients = 4;

bool is_2xx(int status) { return status >= 200 && status < 300; }

// What the background exchanges share; they run on the session's strand.
struct State {
  State(Strand on, HttpServer config, TransportEvents handlers)
      : strand(std::move(on)),
        server(std::move(config)),
        shown_url(base::redact_url(server.url)),
        events(std::move(handlers)) {}

  Strand strand;
  HttpServer server;
  std::string shown_url;  // for messages and logs: no credentials in the query
  TransportEvents events;
  std::string session_id;
  std::string protocol_version;
  std::vector<std::unique_ptr<HttpClient>> idle;                 // kept-alive connections
  std::set<std::shared_ptr<asio::cancellation_signal>> running;  // one per background task
  std::map<std::string, std::shared_ptr<asio::cancellation_signal>> requests;  // by id, as JSON
  std::vector<asio::steady_timer*> waiters;
  bool closing = false;
  bool reported = false;

  Result<std::unique_ptr<HttpClient>> client() {
    if (!idle.empty()) {
      auto kept = std::move(idle.back());
      idle.pop_back();
      return kept;
    }
    return HttpClient::create(strand, server.client);
  }

  void give_back(std::unique_ptr<HttpClient> client) {
    if (idle.size() < max_idle_clients) idle.push_back(std::move(client));
  }

  std::vector<HttpHeader> headers(std::string_view accept) const {
    std::vector<HttpHeader> out = server.headers;
    out.push_back({"Accept", std::string(accept)});
    if (!session_id.empty()) out.push_back({"Mcp-Session-Id", session_id});
    if (!protocol_version.empty()) out.push_back({"MCP-Protocol-Version", protocol_version});
    return out;
  }

  HttpRequest post(std::string body) const {
    auto request = HttpRequest{.method = "POST",
                               .url = server.url,
                               .headers = headers("application/json, text/event-stream"),
                               .body = std::move(body)};
    request.headers.push_back({"Content-Type", "application/json"});
    return request;
  }

  HttpRequest get(const std::string& last_event_id) const {
    auto request =
        HttpRequest{.method = "GET", .url = server.url, .headers = headers("text/event-stream")};
    if (!last_event_id.empty()) request.headers.push_back({"Last-Event-ID", last_event_id});
    return request;
  }

  void report(Error reason) {
    if (reported || closing) return;
    reported = true;
    if (events.on_closed) events.on_closed(std::move(reason));
  }

  void notify() {
    for (auto* waiter : waiters) waiter->cancel();
  }
};

using StatePtr = std::shared_ptr<State>;

// The error an HTTP status stands for. A lost session also closes the
// transport: its owner has to initialize a new one.
Error status_error(State& state, const HttpResponse& response) {
  std::string detail = response.body.substr(0, 300);
  if (auto body = jsonrpc::parse(response.body, state.server.max_message)) {
    if (auto error = base::json_field<json>(*body, "error")) {
      detail = base::json_value(*error, "message", detail);
    }
  }
  const bool session_gone =
      !state.session_id.empty() &&
      (response.status == 404 ||
       (response.status == 400 && detail.find("session") != std::string::npos));
  if (session_gone) {
    Error gone{ErrorCode::unavailable, fmt::format("MCP session at {} expired (HTTP {})",
                                                   state.shown_url, response.status)};
    state.report(gone);
    return gone;
  }
  if (response.status == 401 || response.status == 403) {
    return Error{ErrorCode::permission_denied,
                 fmt::format("MCP server {} wants authorization (HTTP {}): {}", state.shown_url,
                             response.status, detail)};
  }
  return Error{ErrorCode::protocol, fmt::format("MCP server {} answered HTTP {}: {}",
                                                state.shown_url, response.status, detail)};
}

struct Exchange {
  Result<HttpResponse> response = fail(ErrorCode::internal, "not sent");
  std::string last_event_id;
  std::optional<std::int64_t> retry_ms;  // the stream's retry: field
  bool stream = false;
  bool answered = false;  // the answer to request_id was delivered
};

bool answers(const json& message, const std::optional<json>& request_id) {
  return request_id && message.is_object() && message.contains("id") &&
         message["id"] == *request_id && (message.contains("result") || message.contains("error"));
}

// One HTTP exchange; every message in its body is delivered as it arrives.
asio::awaitable<Exchange> exchange_once(StatePtr state, HttpRequest request,
                                        std::optional<json> request_id) {
  Exchange outcome;
  auto made = state->client();
  if (!made) {
    outcome.response = std::unexpected(made.error());
    co_return outcome;
  }
  auto client = std::move(*made);
  ResponseReader reader(state->server.max_message, [&](json message) {
    if (answers(message, request_id)) outcome.answered = true;
    if (!state->closing && state->events.on_message) state->events.on_message(std::move(message));
  });
  transport::HeadHandler on_head = [&](const HttpResponse& head) -> Result<void> {
    // initialize's answer names the session; it must be known before the
    // answer is delivered, since notifications/initialized follows at once.
    if (auto id = head.header("mcp-session-id"); !id.empty() && state->session_id.empty()) {
      state->session_id = std::move(id);
    }
    return reader.head(head);
  };
  transport::BodyHandler on_body = [&](std::string_view chunk) { return reader.body(chunk); };
  outcome.response = co_await client->send(request, on_head, on_body);
  if (outcome.response && is_2xx(outcome.response->status)) {
    if (auto finished = reader.finish(); !finished) {
      outcome.response = std::unexpected(std::move(finished).error());
    }
  }
  outcome.last_event_id = reader.last_event_id();
  outcome.retry_ms = reader.retry_ms();
  outcome.stream = reader.is_stream();
  if (outcome.response) state->give_back(std::move(client));
  co_return outcome;
}

void set_authorization(HttpRequest& request, const std::string& value) {
  std::erase_if(request.headers, [](const HttpHeader& header) {
    return base::ascii_lower(header.name) == "authorization";
  });
  if (!value.empty()) request.headers.push_back({"Authorization", value});
}

bool refused(const Exchange& outcome) {
  return outcome.response && (outcome.response->status == 401 || outcome.response->status == 403);
}

// An exchange with the server's OAuth bearer token; a refusal goes to the
// OAuth client, and the request is sent once more when it renewed the
// credentials (refresh, sign-in, scope step-up).
asio::awaitable<Exchange> exchange(StatePtr state, HttpRequest request,
                                   std::optional<json> request_id) {
  auto oauth = state->server.oauth;
  if (!oauth) co_return co_await exchange_once(state, std::move(request), request_id);
  Exchange failed;
  auto header = co_await oauth->authorization();
  if (!header) {
    failed.response = std::unexpected(std::move(header).error());
    co_return failed;
  }
  set_authorization(request, *header);
  auto outcome = co_await exchange_once(state, request, request_id);
  if (!refused(outcome) || state->closing) co_return outcome;
  const auto status = outcome.response->status;
  auto renewed =
      co_await oauth->challenged(status, outcome.response->header("www-authenticate"), *header);
  if (!renewed) {
    failed.response = std::unexpected(std::move(renewed).error());
    co_return failed;
  }
  header = co_await oauth->authorization();
  if (!header) {
    failed.response = std::unexpected(std::move(header).error());
    co_return failed;
  }
  set_authorization(request, *header);
  co_return co_await exchange_once(state, std::move(request), request_id);
}

void fail_request(State& state, const json& id, Error reason) {
  if (state.closing || state.reported) return;
  if (state.events.on_request_failed) state.events.on_request_failed(id, std::move(reason));
}

// A request's POST, run in the background: its answer comes through the
// session; a stream cut before the answer is resumed with Last-Event-ID.
asio::awaitable<void> post_request(StatePtr state, std::string body, json id) {
  co_await asio::this_coro::throw_if_cancelled(false);
  HttpRequest post = state->post(std::move(body));
  auto outcome = co_await exchange(state, std::move(post), id);
  std::string last_event_id = outcome.last_event_id;
  auto retry_ms = outcome.retry_ms;
  asio::steady_timer pause(state->strand);
  for (int attempt = 0;; ++attempt) {
    // Given up on by the session (cancel_request) or closing: no resumption.
    const auto cancelled = (co_await asio::this_coro::cancellation_state).cancelled();
    if (outcome.answered || state->closing || cancelled != asio::cancellation_type::none) co_return;
    if (outcome.response && !is_2xx(outcome.response->status)) {
      fail_request(*state, id, status_error(*state, *outcome.response));
      co_return;
    }
    if (outcome.response && outcome.response->status == 202) co_return;  // answered elsewhere
    if (!outcome.stream || last_event_id.empty() || attempt >= state->server.resume_attempts) {
      fail_request(*state, id,
                   outcome.response
                       ? Error{ErrorCode::protocol, "the MCP server's answer did not come"}
                       : std::move(outcome.response).error());
      co_return;
    }
    // The server said how long to wait (SSE retry:); bounded so a bad
    // value cannot park the request.
    if (retry_ms && *retry_ms > 0) {
      pause.expires_after(std::chrono::milliseconds(std::min<std::int64_t>(*retry_ms, 30'000)));
      co_await pause.async_wait(use_tuple);
      if (state->closing) co_return;
    }
    spdlog::debug("mcp {}: resuming a cut stream after event {}", state->shown_url, last_event_id);
    HttpRequest get = state->get(last_event_id);
    outcome = co_await exchange(state, std::move(get), id);
    if (!outcome.last_event_id.empty()) last_event_id = outcome.last_event_id;
    if (outcome.retry_ms) retry_ms = outcome.retry_ms;
    outcome.stream = true;
  }
}

// The GET stream for the server's own requests and notifications, reopened
// (with Last-Event-ID) whenever it ends, until the transport closes.
asio::awaitable<void> listen(StatePtr state) {
  co_await asio::this_coro::throw_if_cancelled(false);
  std::string last_event_id;
  int failures = 0;
  asio::steady_timer pause(state->strand);
  while (!state->closing && !state->reported) {
    HttpRequest get = state->get(last_event_id);
    auto outcome = co_await exchange(state, std::move(get), std::nullopt);
    if (state->closing) co_return;
    if (outcome.response && outcome.response->status == 405) co_return;  // not offered
    if (outcome.response && !is_2xx(outcome.response->status)) {
      auto error = status_error(*state, *outcome.response);
      spdlog::debug("mcp {}: GET stream: {}", state->shown_url, error.message);
      if (state->reported) co_return;
    }
    const bool progressed =
        !outcome.last_event_id.empty() && outcome.last_event_id != last_event_id;
    if (!outcome.last_event_id.empty()) last_event_id = outcome.last_event_id;
    // A stream that opened and later idled out is normal: reopen at once.
    failures = (progressed || outcome.stream) ? 0 : failures + 1;
    pause.expires_after(std::min(std::chrono::milliseconds(250) * (1 << std::min(failures, 7)),
                                 std::chrono::milliseconds(30'000)));
    co_await pause.async_wait(use_tuple);
  }
}

// Runs a task on the strand with its own cancellation signal, which close()
// emits; the signal lives until the task's completion has run.
void spawn_task(const StatePtr& state, asio::awaitable<void> task,
                const std::string& request = {}) {
  auto signal = std::make_shared<asio::cancellation_signal>();
  state->running.insert(signal);
  if (!request.empty()) state->requests[request] = signal;
  auto done = [state, signal, request](const std::exception_ptr& error) {
    state->running.erase(signal);
    if (auto found = state->requests.find(request);
        found != state->requests.end() && found->second == signal) {
      state->requests.erase(found);
    }
    state->notify();
    if (!error) return;
    // A task that threw must not leave its request waiting for a timeout.
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& thrown) {
      what = thrown.what();
    } catch (...) {
    }
    spdlog::error("mcp {}: background task failed: {}", state->shown_url, what);
    if (!request.empty()) {
      if (auto id = jsonrpc::parse(request, request.size())) {
        fail_request(*state, *id,
                     Error{ErrorCode::internal, "the MCP answer could not be handled: " + what});
      }
    }
  };
  asio::co_spawn(state->strand, std::move(task),
                 asio::bind_cancellation_slot(signal->slot(),
                                              asio::bind_executor(state->strand, std::move(done))));
}

// Cancels every background task. A task may finish inside emit() (the
// strand runs its completion inline) and leave `running`, so emit on a copy.
void cancel_all(State& state) {
  const auto signals = state.running;
  for (const auto& signal : signals) signal->emit(asio::cancellation_type::terminal);
}

class HttpTransport final : public Transport {
 public:
  explicit HttpTransport(HttpServer server) : server_(std::move(server)) {}
  ~HttpTransport() override {
    // After close() nothing is left to stop (and the io_context may be gone).
    if (!state_ || state_->closing) return;
    asio::post(state_->strand, [state = state_] {
      state->closing = true;
      cancel_all(*state);
    });
  }
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  asio::awaitable<Result<void>> start(Strand strand, TransportEvents events) override {
    if (state_) co_return fail(ErrorCode::conflict, "HTTP transport already started");
    if (auto url = transport::Url::parse(server_.url); !url) co_return std::unexpected(url.error());
    state_ = std::make_shared<State>(std::move(strand), server_, std::move(events));
    co_return Result<void>{};
  }

  asio::awaitable<Result<void>> send(json message) override {
    auto state = state_;
    if (!state || state->closing || state->reported) {
      co_return fail(ErrorCode::unavailable,
                     fmt::format("MCP server {} is not connected", describe()));
    }
    std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
    if (body.size() > server_.max_message) {
      co_return fail(ErrorCode::limit_exceeded, fmt::format("MCP message of {} bytes exceeds {}",
                                                            body.size(), server_.max_message));
    }
    if (message.contains("method") && message.contains("id")) {
      spawn_task(state, post_request(state, std::move(body), message["id"]), message["id"].dump());
      co_return Result<void>{};
    }
    // Notifications and answers are short: 202 Accepted, or an error.
    HttpRequest post = state->post(std::move(body));
    auto outcome = co_await exchange(state, std::move(post), std::nullopt);
    if (!outcome.response) co_return std::unexpected(std::move(outcome.response).error());
    if (!is_2xx(outcome.response->status)) {
      co_return std::unexpected(status_error(*state, *outcome.response));
    }
    co_return Result<void>{};
  }

  void cancel_request(const json& id) override {
    // The server was told (notifications/cancelled); its stream for this
    // request may never end, so stop reading it.
    if (!state_) return;
    if (auto found = state_->requests.find(id.dump()); found != state_->requests.end()) {
      // A copy: the task may finish inside emit() and drop the map's entry.
      const auto signal = found->second;
      signal->emit(asio::cancellation_type::terminal);
    }
  }

  void initialized(const std::string& protocol_version) override {
    state_->protocol_version = protocol_version;
    if (server_.listen) spawn_task(state_, listen(state_));
  }

  asio::awaitable<void> close() override {
    auto state = state_;
    if (!state || state->closing) co_return;
    state->closing = true;
    cancel_all(*state);
    asio::steady_timer wait(state->strand, Clock::now() + server_.close_timeout);
    state->waiters.push_back(&wait);
    while (!state->running.empty() && Clock::now() < wait.expiry()) {
      co_await wait.async_wait(use_tuple);
    }
    std::erase(state->waiters, &wait);
    if (state->session_id.empty()) co_return;
    // Tell the server the session is over; 405 means it does not let
    // clients end sessions, which is fine too.
    auto options = server_.client;
    options.timeouts.connect = options.timeouts.first_byte = options.timeouts.idle =
        server_.close_timeout;
    auto client = HttpClient::create(state->strand, options);
    if (!client) co_return;
    HttpRequest request{.method = "DELETE", .url = server_.url, .headers = state->headers("*/*")};
    if (server_.oauth) {
      auto header = co_await server_.oauth->authorization();
      if (header) set_authorization(request, *header);
    }
    const transport::BodyHandler ignore_body;
    auto deleted = co_await (*client)->send(request, ignore_body);
    if (!deleted) spdlog::debug("mcp {}: DELETE failed: {}", describe(), deleted.error().message);
  }

  // Names the server in every session error and log line: without the
  // credentials a URL may carry in its query.
  std::string describe() const override { return base::redact_url(server_.url); }

 private:
  HttpServer server_;
  StatePtr state_;
};

}  // namespace

std::unique_ptr<Transport> make_http_transport(HttpServer server) {
  return std::make_unique<HttpTransport>(std::move(server));
}

}  // namespace ava::mcp
