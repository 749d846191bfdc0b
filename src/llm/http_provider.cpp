#include "ava/llm/http_provider.hpp"

#include <charconv>
#include <random>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/id.hpp"
#include "ava/llm/encode.hpp"
#include "ava/transport/url.hpp"
#include "llm/decoder_base.hpp"

namespace ava::llm {

namespace asio = boost::asio;

namespace {

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// The error a non-2xx reply stands for: its JSON error type when it has one
// ({"error":{"type"|"code","message"}}), else its status.
StreamError http_status_error(const transport::HttpResponse& response) {
  auto body = detail::parse_payload(response.body);
  std::string type;
  std::string message;
  if (body) {
    const auto& error = detail::member(*body, "error");
    type = detail::str(error, "type");
    if (type.empty()) type = detail::str(error, "code");
    message = detail::str(error, "message");
  }
  StreamError by_status = detail::classify_error(std::to_string(response.status), {});
  StreamError error = type.empty() ? by_status : detail::classify_error(type, {});
  if (error.kind == ErrorKind::other) error = by_status;
  // The status decides retryability: 408/409/429/5xx and 529 are worth another try.
  error.retryable = response.status == 408 || response.status == 409 || response.status == 429 ||
                    response.status >= 500;
  error.message = fmt::format("HTTP {}{}{}", response.status, message.empty() ? "" : ": ", message);
  return error;
}

bool is_output(const StreamEvent& event) {
  return std::holds_alternative<TextDelta>(event) || std::holds_alternative<ThinkingDelta>(event) ||
         std::holds_alternative<ToolCallStart>(event) ||
         std::holds_alternative<ToolCallDelta>(event) ||
         std::holds_alternative<ToolCallComplete>(event);
}

// One attempt's state: output events pass straight to the caller, the
// ending events (usage, stop, error) wait until we know there is no retry.
struct Attempt {
  EventSink* caller = nullptr;
  bool streamed_output = false;
  std::vector<StreamEvent> held;

  EventSink sink() {
    return [this](const StreamEvent& event) {
      if (is_output(event)) {
        streamed_output = true;
        if (*caller) (*caller)(event);
      } else {
        held.push_back(event);
      }
    };
  }
};

Response failed_response(StreamError error) {
  Response response;
  response.message.role = Role::assistant;
  response.stop = Stop{.reason = StopReason::error, .provider_reason = {}};
  response.error = std::move(error);
  return response;
}

}  // namespace

std::string default_base_url(WireApi api) {
  return api == WireApi::anthropic_messages ? "https://api.anthropic.com"
                                            : "https://api.openai.com/v1";
}

std::string_view endpoint_path(WireApi api) {
  switch (api) {
    case WireApi::anthropic_messages: return "/v1/messages";
    case WireApi::openai_chat: return "/chat/completions";
    case WireApi::openai_responses: return "/responses";
  }
  return "/";
}

std::optional<std::chrono::milliseconds> retry_delay(
    const RetryPolicy& policy, int retry, std::optional<std::chrono::milliseconds> retry_after,
    double jitter_fraction) {
  if (retry_after) {
    if (*retry_after > policy.max_delay) return std::nullopt;
    return retry_after;
  }
  auto delay = policy.base_delay;
  for (int i = 0; i < retry && delay < policy.max_delay; ++i) delay *= 2;
  delay = std::min(delay, policy.max_delay);
  auto half = delay / 2;
  return half + std::chrono::milliseconds(
                    static_cast<std::int64_t>(static_cast<double>(half.count()) * jitter_fraction));
}

std::optional<std::chrono::milliseconds> parse_retry_after(
    const transport::HttpResponse& response) {
  if (auto ms = parse_integer(response.header("retry-after-ms")))
    return std::chrono::milliseconds(*ms);
  if (auto seconds = parse_integer(response.header("retry-after")))
    return std::chrono::seconds(*seconds);
  return std::nullopt;
}

Result<std::unique_ptr<HttpProvider>> HttpProvider::create(asio::any_io_executor executor,
                                                           HttpProviderConfig config) {
  if (config.base_url.empty()) config.base_url = default_base_url(config.api);
  AVA_TRY_VOID(transport::Url::parse(config.base_url));
  AVA_TRY(auto client, transport::HttpClient::create(std::move(executor), config.http));
  return std::unique_ptr<HttpProvider>(new HttpProvider(std::move(config), std::move(client)));
}

transport::HttpRequest HttpProvider::make_http_request(const Request& request) const {
  std::string body;
  if (config_.send_max_output_tokens || !request.max_output_tokens) {
    body = encode_request(config_.api, request);
  } else {
    Request without = request;
    without.max_output_tokens.reset();
    body = encode_request(config_.api, without);
  }
  transport::HttpRequest http{
      .method = "POST",
      .url = transport::join_url(config_.base_url, endpoint_path(config_.api)),
      .headers = {{"content-type", "application/json"}, {"accept", "text/event-stream"}},
      .body = std::move(body)};
  if (config_.api == WireApi::anthropic_messages) {
    http.headers.push_back({"anthropic-version", "2023-06-01"});
    if (!config_.api_key.empty()) http.headers.push_back({"x-api-key", config_.api_key.reveal()});
  } else if (!config_.api_key.empty()) {
    http.headers.push_back({"authorization", "Bearer " + config_.api_key.reveal()});
  }
  for (const auto& header : config_.extra_headers) http.headers.push_back(header);
  return http;
}

asio::awaitable<Result<Response>> HttpProvider::stream(const Request& request, EventSink on_event) {
  transport::HttpRequest http = make_http_request(request);
  const std::size_t fixed_headers = http.headers.size();
  // A login's headers, fresh; after a 401 refreshed once and sent again.
  auto authorize = [&](bool rejected) -> asio::awaitable<std::optional<StreamError>> {
    auto extra = co_await config_.credentials(rejected);
    if (!extra) {
      co_return StreamError{
          .kind = ErrorKind::authentication, .message = extra.error().message, .retryable = false};
    }
    http.headers.resize(fixed_headers);
    for (auto& header : *extra) http.headers.push_back(std::move(header));
    co_return std::nullopt;
  };
  // Ends the turn as any failed request does: the error, usage, the stop.
  auto refuse = [&on_event](StreamError error) {
    Response response = failed_response(std::move(error));
    if (on_event) {
      on_event(*response.error);
      on_event(UsageReport{response.usage});
      on_event(response.stop);
    }
    return response;
  };
  bool reauthorized = false;
  if (config_.credentials) {
    if (auto refused = co_await authorize(false)) co_return refuse(std::move(*refused));
  }
  Usage billed_by_failed_attempts;
  std::mt19937 random(static_cast<std::mt19937::result_type>(base::random_seed()));
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  for (int attempt = 0;; ++attempt) {
    Attempt state{.caller = &on_event};
    auto decoder = make_stream_decoder(config_.api, state.sink());
    transport::SseParser parser;
    std::vector<transport::SseEvent> events;
    auto deliver = [&] {
      for (const auto& event : events) {
        if (!decoder->finished()) decoder->on_event(event);
      }
      events.clear();
    };
    transport::BodyHandler on_body = [&](std::string_view chunk) -> Result<void> {
      auto fed = parser.feed(chunk, events);
      deliver();
      return fed;
    };
    auto sent = co_await client_->send(http, on_body);

    Response response;
    std::optional<std::chrono::milliseconds> retry_after;
    if (!sent) {
      if (sent.error().code == ErrorCode::cancelled)
        co_return std::unexpected(std::move(sent).error());
      // The connection failed or broke: keep what was decoded, report the cause.
      response = decoder->finish();
      state.held.clear();
      StreamError error{.kind = sent.error().code == ErrorCode::limit_exceeded ? ErrorKind::protocol
                                                                               : ErrorKind::network,
                        .message = sent.error().message,
                        .retryable = sent.error().code != ErrorCode::limit_exceeded};
      std::erase_if(response.message.content, [](const ContentBlock& block) {
        return std::holds_alternative<ToolCallBlock>(block);
      });
      response.error = error;
      response.stop = Stop{.reason = StopReason::error, .provider_reason = {}};
      state.held = {error, UsageReport{response.usage}, response.stop};
    } else if (sent->status == 401 && config_.credentials && !reauthorized) {
      // The access token was refused (revoked, or expired early): refresh
      // it and send the request again, once.
      reauthorized = true;
      if (auto refused = co_await authorize(true)) co_return refuse(std::move(*refused));
      --attempt;
      continue;
    } else if (sent->status < 200 || sent->status >= 300) {
      StreamError error = http_status_error(*sent);
      retry_after = parse_retry_after(*sent);
      response = failed_response(error);
      state.held = {error, UsageReport{response.usage}, response.stop};
    } else {
      if (auto flushed = parser.finish(events); flushed) deliver();
      response = decoder->finish();
    }

    bool retry = response.error && response.error->retryable && !state.streamed_output &&
                 attempt + 1 < config_.retry.max_attempts;
    std::optional<std::chrono::milliseconds> delay;
    if (retry) delay = retry_delay(config_.retry, attempt, retry_after, jitter(random));
    if (delay) {
      billed_by_failed_attempts += response.usage;
      asio::steady_timer timer(co_await asio::this_coro::executor, *delay);
      auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      if (ec)
        co_return fail(ErrorCode::cancelled, "provider request cancelled while waiting to retry");
      continue;
    }
    response.usage += billed_by_failed_attempts;
    for (auto& event : state.held) {
      if (auto* usage = std::get_if<UsageReport>(&event)) usage->usage = response.usage;
      if (on_event) on_event(event);
    }
    co_return response;
  }
}

}  // namespace ava::llm
