// Per-request cost of HttpProvider against the loopback fake provider:
// encode, send on a kept-alive connection, stream a short reply through the
// SSE parser and decoder. The baseline sends the same encoded body with a
// bare HttpClient and only counts the reply's bytes; the difference is what
// the provider layer adds per request (target: < 1 ms). The server thread's
// own work is in both.

#include <benchmark/benchmark.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/llm/encode.hpp"
#include "ava/llm/http_provider.hpp"
#include "ava/transport/url.hpp"
#include "support/fake_provider.hpp"
#include "support/wire_sse.hpp"

namespace {

struct Fixture {
  ava::llm::WireApi api;
  std::unique_ptr<ava::test::FakeProviderServer> server = ava::test::FakeProviderServer::start();
  ava::llm::Request request{
      .model = "bench",
      .messages = {
          ava::llm::Message{.role = ava::llm::Role::user, .content = {ava::llm::TextBlock{"hi"}}}}};

  explicit Fixture(ava::llm::WireApi wire) : api(wire) {
    auto script = ava::llm::parse_mock_script(
        R"({"responses":[{"steps":[{"text":"Hello there, how can I help?"},
            {"toolCall":{"id":"call_1","name":"read","arguments":{"path":"a.txt"}}}],
            "usage":{"inputTokens":10,"outputTokens":5}}]})");
    auto chunks = ava::test::chunks_per_event(ava::test::render_sse(api, script->responses[0]));
    server->set_fallback([chunks](const ava::test::RecordedRequest&) {
      return ava::test::FakeReply{.chunks = chunks};
    });
  }
  std::string base_url() const {
    return server->base_url() + (api == ava::llm::WireApi::anthropic_messages ? "" : "/v1");
  }
};

// Runs one awaitable to completion on `io`, reusing the context.
template <class Make>
void run_once(boost::asio::io_context& io, Make make) {
  boost::asio::co_spawn(io, make(), boost::asio::detached);
  io.restart();
  io.run();
}

void request_round_trip(benchmark::State& state, ava::llm::WireApi api) {
  Fixture fixture(api);
  boost::asio::io_context io;
  ava::llm::HttpProviderConfig config{.api = api, .base_url = fixture.base_url()};
  config.http.proxy = ava::transport::ProxyConfig{};
  auto provider = std::move(ava::llm::HttpProvider::create(io.get_executor(), config).value());
  ava::llm::EventSink sink = [](const ava::llm::StreamEvent&) {};
  for (auto _ : state) {
    bool ok = false;
    run_once(io, [&]() -> boost::asio::awaitable<void> {
      auto result = co_await provider->stream(fixture.request, sink);
      ok = result.has_value() && !result->error;
    });
    if (!ok) state.SkipWithError("request failed");
  }
}

// The same bytes each way with nothing but the HTTP client.
void raw_http_round_trip(benchmark::State& state, ava::llm::WireApi api) {
  Fixture fixture(api);
  boost::asio::io_context io;
  ava::transport::HttpClientOptions options;
  options.proxy = ava::transport::ProxyConfig{};
  auto client = std::move(ava::transport::HttpClient::create(io.get_executor(), options).value());
  ava::transport::HttpRequest http{
      .method = "POST",
      .url = ava::transport::join_url(fixture.base_url(), ava::llm::endpoint_path(api)),
      .headers = {{"content-type", "application/json"}, {"accept", "text/event-stream"}},
      .body = ava::llm::encode_request(api, fixture.request)};
  std::size_t bytes = 0;
  ava::transport::BodyHandler on_body = [&](std::string_view chunk) -> ava::Result<void> {
    bytes += chunk.size();
    return {};
  };
  for (auto _ : state) {
    bool ok = false;
    run_once(io, [&]() -> boost::asio::awaitable<void> {
      auto result = co_await client->send(http, on_body);
      ok = result.has_value() && result->status == 200;
    });
    if (!ok) state.SkipWithError("request failed");
  }
  benchmark::DoNotOptimize(bytes);
}

}  // namespace

BENCHMARK_CAPTURE(request_round_trip, anthropic, ava::llm::WireApi::anthropic_messages)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(raw_http_round_trip, anthropic, ava::llm::WireApi::anthropic_messages)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(request_round_trip, openai_chat, ava::llm::WireApi::openai_chat)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(raw_http_round_trip, openai_chat, ava::llm::WireApi::openai_chat)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(request_round_trip, openai_responses, ava::llm::WireApi::openai_responses)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(raw_http_round_trip, openai_responses, ava::llm::WireApi::openai_responses)
    ->Unit(benchmark::kMicrosecond);
