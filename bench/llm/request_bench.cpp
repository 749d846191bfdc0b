// Per-request cost of HttpProvider against the loopback fake provider:
// encode, send on a kept-alive connection, stream a short reply through the
// SSE parser and decoder. The server thread's own work is included, so this
// is an upper bound on what Ava adds per request.

#include <benchmark/benchmark.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "ava/llm/http_provider.hpp"
#include "support/fake_provider.hpp"
#include "support/wire_sse.hpp"

namespace {

void request_round_trip(benchmark::State& state, ava::llm::WireApi api) {
  auto script = ava::llm::parse_mock_script(
      R"({"responses":[{"steps":[{"text":"Hello there, how can I help?"},
          {"toolCall":{"id":"call_1","name":"read","arguments":{"path":"a.txt"}}}],
          "usage":{"inputTokens":10,"outputTokens":5}}]})");
  auto chunks = ava::test::chunks_per_event(ava::test::render_sse(api, script->responses[0]));
  auto server = ava::test::FakeProviderServer::start();
  server->set_fallback([chunks](const ava::test::RecordedRequest&) {
    return ava::test::FakeReply{.chunks = chunks};
  });

  boost::asio::io_context io;
  ava::llm::HttpProviderConfig config{.api = api, .base_url = server->base_url() + "/v1"};
  auto provider = std::move(ava::llm::HttpProvider::create(io.get_executor(), config).value());
  ava::llm::Request request{
      .model = "bench",
      .messages = {
          ava::llm::Message{.role = ava::llm::Role::user, .content = {ava::llm::TextBlock{"hi"}}}}};
  ava::llm::EventSink sink = [](const ava::llm::StreamEvent&) {};
  for (auto _ : state) {
    bool ok = false;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          auto result = co_await provider->stream(request, sink);
          ok = result.has_value() && !result->error;
        },
        boost::asio::detached);
    io.restart();
    io.run();
    if (!ok) state.SkipWithError("request failed");
  }
}

}  // namespace

BENCHMARK_CAPTURE(request_round_trip, anthropic, ava::llm::WireApi::anthropic_messages)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(request_round_trip, openai_chat, ava::llm::WireApi::openai_chat)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(request_round_trip, openai_responses, ava::llm::WireApi::openai_responses)
    ->Unit(benchmark::kMicrosecond);
