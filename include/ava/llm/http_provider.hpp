#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/log.hpp"
#include "ava/llm/provider.hpp"
#include "ava/transport/http_client.hpp"

namespace ava::llm {

struct RetryPolicy {
  int max_attempts = 4;  // the first try included
  std::chrono::milliseconds base_delay{500};
  std::chrono::milliseconds max_delay{30'000};  // a longer retry-after is not waited for
};

struct HttpProviderConfig {
  WireApi api = WireApi::anthropic_messages;
  std::string base_url;  // empty: the provider's default (default_base_url)
  base::Secret api_key;  // empty for local servers that need none
  std::vector<transport::HttpHeader> extra_headers;
  RetryPolicy retry;
  // The transport's timeouts, and at most an hour for one response: a
  // stream that drips a byte before every idle timeout still ends.
  transport::HttpClientOptions http{.timeouts = {.total = std::chrono::hours(1)}};
  // Headers that change between requests (a login's access token), asked
  // for before each request; after a 401 asked again with rejected = true
  // (refresh) and the request sent once more. Its error ends the turn as an
  // authentication error.
  std::function<boost::asio::awaitable<Result<std::vector<transport::HttpHeader>>>(bool rejected)>
      credentials;
  // Some endpoints refuse max_output_tokens (the ChatGPT Codex backend).
  bool send_max_output_tokens = true;
};

// The official SDKs' defaults: https://api.anthropic.com (the path carries
// /v1) and https://api.openai.com/v1 (the base carries /v1).
std::string default_base_url(WireApi api);
// "/v1/messages", "/chat/completions", "/responses".
std::string_view endpoint_path(WireApi api);

// Backoff before retry number `retry` (0 for the first retry): exponential
// from base_delay with jitter in [d/2, d], capped at max_delay; a server's
// retry-after replaces it. nullopt: do not retry (retry-after beyond max_delay).
std::optional<std::chrono::milliseconds> retry_delay(
    const RetryPolicy& policy, int retry, std::optional<std::chrono::milliseconds> retry_after,
    double jitter_fraction);

// retry-after-ms, else retry-after in seconds (HTTP dates are ignored).
std::optional<std::chrono::milliseconds> parse_retry_after(const transport::HttpResponse& response);

// A streaming provider over HTTPS: encodes the request for its wire format,
// streams the body through the SSE parser into the decoder, and retries
// 408/409/429/5xx/529, overloaded and cut streams with backoff, but never
// once output reached the caller. Usage billed by failed attempts is added
// to the final response.
class HttpProvider final : public Provider {
 public:
  static Result<std::unique_ptr<HttpProvider>> create(boost::asio::any_io_executor executor,
                                                      HttpProviderConfig config);

  boost::asio::awaitable<Result<Response>> stream(const Request& request,
                                                  EventSink on_event) override;
  // Drops the kept-alive connection (agent replaced or shut down).
  void close() override { client_->close(); }

 private:
  HttpProvider(HttpProviderConfig config, std::unique_ptr<transport::HttpClient> client)
      : config_(std::move(config)), client_(std::move(client)) {}

  transport::HttpRequest make_http_request(const Request& request) const;

  HttpProviderConfig config_;
  std::unique_ptr<transport::HttpClient> client_;
};

}  // namespace ava::llm
