// HttpProvider against the loopback fake provider: every wire format from
// scripts and from captured fixtures, and each injected failure.

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ava/llm/http_provider.hpp"
#include "support/fake_provider.hpp"
#include "support/fixture.hpp"
#include "support/run_coroutine.hpp"
#include "support/wire_sse.hpp"

namespace asio = boost::asio;
namespace llm = ava::llm;
using ava::test::FakeProviderServer;
using ava::test::FakeReply;
using nlohmann::json;

namespace {

struct Call {
  ava::Result<llm::Response> result = ava::fail(ava::ErrorCode::internal, "unset");
  std::vector<llm::StreamEvent> events;
  const llm::Response& response() const {
    REQUIRE(result.has_value());
    return *result;
  }
};

llm::HttpProviderConfig config_for(llm::WireApi api, const FakeProviderServer& server) {
  llm::HttpProviderConfig config{
      .api = api,
      .base_url = server.base_url() + (api == llm::WireApi::anthropic_messages ? "" : "/v1"),
      .api_key = ava::base::Secret("sk-test-123")};
  config.retry.base_delay = std::chrono::milliseconds(10);
  return config;
}

Call call(llm::HttpProviderConfig config, llm::Request request = {}) {
  return ava::test::run_coroutine([&](asio::io_context& io) -> asio::awaitable<Call> {
    auto provider = llm::HttpProvider::create(io.get_executor(), config);
    REQUIRE(provider.has_value());
    Call out;
    llm::EventSink sink = [&](const llm::StreamEvent& event) { out.events.push_back(event); };
    out.result = co_await (*provider)->stream(request, sink);
    co_return out;
  });
}

llm::MockResponse scripted(std::string_view json_text) {
  auto script = llm::parse_mock_script(json_text);
  REQUIRE(script.has_value());
  return script->responses.at(0);
}

FakeReply sse_reply(llm::WireApi api, const llm::MockResponse& response) {
  return FakeReply{.chunks = ava::test::chunks_per_event(ava::test::render_sse(api, response))};
}

const llm::MockResponse& text_and_call() {
  static const llm::MockResponse response = scripted(R"({"responses":[{"steps":[
      {"text": "Let me look."},
      {"toolCall": {"id": "call_7", "name": "read", "arguments": {"path": "src/main.cpp"}}}],
      "usage": {"inputTokens": 50, "outputTokens": 12, "cacheReadTokens": 30}}]})");
  return response;
}

std::string text_of(const llm::Response& response) {
  std::string text;
  for (const auto& block : response.message.content) {
    if (const auto* part = std::get_if<llm::TextBlock>(&block)) text += part->text;
  }
  return text;
}

std::vector<llm::ToolCallBlock> calls_of(const llm::Response& response) {
  std::vector<llm::ToolCallBlock> calls;
  for (const auto& block : response.message.content) {
    if (const auto* call = std::get_if<llm::ToolCallBlock>(&block)) calls.push_back(*call);
  }
  return calls;
}

const llm::WireApi all_apis[] = {llm::WireApi::anthropic_messages, llm::WireApi::openai_chat,
                                 llm::WireApi::openai_responses};

}  // namespace

TEST_CASE("http provider streams a scripted response in every wire format", "[provider]") {
  for (auto api : all_apis) {
    INFO("wire format " << llm::to_string(api));
    auto server = FakeProviderServer::start();
    server->enqueue(sse_reply(api, text_and_call()));
    llm::Request request{
        .model = "m",
        .messages = {llm::Message{.role = llm::Role::user, .content = {llm::TextBlock{"hi"}}}}};
    auto out = call(config_for(api, *server), request);
    const auto& response = out.response();
    CHECK_FALSE(response.error.has_value());
    CHECK(text_of(response) == "Let me look.");
    auto calls = calls_of(response);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].id == "call_7");
    CHECK(json::parse(calls[0].arguments) == json{{"path", "src/main.cpp"}});
    CHECK(response.stop.reason == llm::StopReason::tool_use);
    CHECK(response.usage.input_tokens == 50);
    CHECK(response.usage.cache_read_tokens == 30);
    CHECK(response.usage.output_tokens == 12);
    REQUIRE_FALSE(out.events.empty());
    CHECK(std::holds_alternative<llm::Stop>(out.events.back()));

    auto requests = server->requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].target == std::string(api == llm::WireApi::anthropic_messages ? "" : "/v1") +
                                    std::string(llm::endpoint_path(api)));
    CHECK(json::parse(requests[0].body)["stream"] == true);
    if (api == llm::WireApi::anthropic_messages) {
      CHECK(requests[0].header("x-api-key") == "sk-test-123");
      CHECK(requests[0].header("anthropic-version") == "2023-06-01");
    } else {
      CHECK(requests[0].header("authorization") == "Bearer sk-test-123");
    }
  }
}

TEST_CASE("http provider decodes captured fixture bodies served over HTTP",
          "[provider][fixtures]") {
  struct Case {
    llm::WireApi api;
    std::string file;
    std::string text;
    std::size_t calls;
  };
  const Case cases[] = {
      {llm::WireApi::anthropic_messages, "anthropic/anthropic-sdk-python__tool_use_response.txt",
       "I'll check the current weather in Paris for you.", 1},
      {llm::WireApi::openai_chat,
       "openai-chat/pydantic-ai__test_run_stream_sync_streams_real_model.yaml.1.sse",
       "The capital of the UK is London.", 0},
      {llm::WireApi::openai_responses,
       "openai-responses/vercel-ai__azure-tool-call.1.chunks.txt.wrapped.sse", "", 1},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const std::string body = ava::test::read_fixture("providers/" + c.file);
    auto server = FakeProviderServer::start();
    server->enqueue(FakeReply{.chunks = ava::test::chunks_per_event(body)});
    auto out = call(config_for(c.api, *server));
    CHECK_FALSE(out.response().error.has_value());
    CHECK(text_of(out.response()) == c.text);
    CHECK(calls_of(out.response()).size() == c.calls);
  }
}

TEST_CASE("http provider retries 429 after the retry-after the server asked for",
          "[provider][retry]") {
  auto server = FakeProviderServer::start();
  server->enqueue(ava::test::http_error_reply(429, 1));
  server->enqueue(sse_reply(llm::WireApi::anthropic_messages, text_and_call()));
  auto started = std::chrono::steady_clock::now();
  auto out = call(config_for(llm::WireApi::anthropic_messages, *server));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(1000));
  CHECK_FALSE(out.response().error.has_value());
  CHECK(server->requests().size() == 2);
  for (const auto& event : out.events) CHECK_FALSE(std::holds_alternative<llm::StreamError>(event));
}

TEST_CASE("http provider retries 500 and 529 with backoff until one succeeds",
          "[provider][retry]") {
  auto server = FakeProviderServer::start();
  server->enqueue(ava::test::http_error_reply(500));
  server->enqueue(ava::test::http_error_reply(529));
  server->enqueue(sse_reply(llm::WireApi::openai_chat, text_and_call()));
  auto out = call(config_for(llm::WireApi::openai_chat, *server));
  CHECK_FALSE(out.response().error.has_value());
  CHECK(server->requests().size() == 3);
}

TEST_CASE("http provider gives up after max attempts with the typed error", "[provider][retry]") {
  auto server = FakeProviderServer::start();
  for (int i = 0; i < 3; ++i) server->enqueue(ava::test::http_error_reply(529));
  auto config = config_for(llm::WireApi::anthropic_messages, *server);
  config.retry.max_attempts = 3;
  auto out = call(config);
  REQUIRE(out.response().error.has_value());
  CHECK(out.response().error->kind == llm::ErrorKind::overloaded);
  CHECK(out.response().error->message.find("HTTP 529") != std::string::npos);
  CHECK(server->requests().size() == 3);
}

TEST_CASE("http provider does not wait for a retry-after beyond its limit", "[provider][retry]") {
  auto server = FakeProviderServer::start();
  server->enqueue(ava::test::http_error_reply(429, 3600));
  auto out = call(config_for(llm::WireApi::openai_responses, *server));
  REQUIRE(out.response().error.has_value());
  CHECK(out.response().error->kind == llm::ErrorKind::rate_limited);
  CHECK(server->requests().size() == 1);
}

TEST_CASE("http provider does not retry a client error", "[provider][retry]") {
  auto server = FakeProviderServer::start();
  server->enqueue(ava::test::http_error_reply(400));
  auto out = call(config_for(llm::WireApi::anthropic_messages, *server));
  REQUIRE(out.response().error.has_value());
  CHECK_FALSE(out.response().error->retryable);
  CHECK(server->requests().size() == 1);
}

TEST_CASE("http provider stream cut after output is an error and is not retried",
          "[provider][inject]") {
  for (auto api : all_apis) {
    INFO(llm::to_string(api));
    auto server = FakeProviderServer::start();
    FakeReply reply = sse_reply(api, text_and_call());
    std::size_t total = 0;
    for (const auto& chunk : reply.chunks) total += chunk.size();
    reply.cut_after_bytes = total - 40;  // inside the last events
    server->enqueue(reply);
    server->enqueue(sse_reply(api, text_and_call()));
    auto out = call(config_for(api, *server));
    REQUIRE(out.response().error.has_value());
    CHECK(out.response().error->kind == llm::ErrorKind::network);
    CHECK(calls_of(out.response()).empty());
    CHECK(server->requests().size() == 1);  // text already reached the caller
  }
}

TEST_CASE("http provider stream cut before any output is retried", "[provider][inject]") {
  auto server = FakeProviderServer::start();
  FakeReply reply = sse_reply(llm::WireApi::anthropic_messages, text_and_call());
  reply.cut_after_bytes = 30;  // inside message_start
  server->enqueue(reply);
  server->enqueue(sse_reply(llm::WireApi::anthropic_messages, text_and_call()));
  auto out = call(config_for(llm::WireApi::anthropic_messages, *server));
  CHECK_FALSE(out.response().error.has_value());
  CHECK(calls_of(out.response()).size() == 1);
  CHECK(server->requests().size() == 2);
}

TEST_CASE(
    "http provider malformed tool arguments: Responses executes nothing, others pass the text on",
    "[provider][inject]") {
  auto malformed = scripted(R"({"responses":[{"steps":[
      {"toolCall": {"id": "call_1", "name": "read", "arguments": "{\"path\": \"a.txt\""}}]}]})");
  {
    auto server = FakeProviderServer::start();
    server->enqueue(sse_reply(llm::WireApi::openai_responses, malformed));
    auto config = config_for(llm::WireApi::openai_responses, *server);
    config.retry.max_attempts = 1;
    auto out = call(config);
    REQUIRE(out.response().error.has_value());
    CHECK(out.response().error->kind == llm::ErrorKind::protocol);
    CHECK(calls_of(out.response()).empty());
  }
  for (auto api : {llm::WireApi::anthropic_messages, llm::WireApi::openai_chat}) {
    auto server = FakeProviderServer::start();
    server->enqueue(sse_reply(api, malformed));
    auto out = call(config_for(api, *server));
    auto calls = calls_of(out.response());
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].arguments == "{\"path\": \"a.txt\"");  // the agent answers it as a bad call
  }
}

TEST_CASE("http provider SSE error event before output is retried, after output it is final",
          "[provider][inject]") {
  for (auto api : all_apis) {
    INFO(llm::to_string(api));
    auto server = FakeProviderServer::start();
    server->enqueue(sse_reply(api, scripted(R"({"responses":[{"steps":[
        {"error": {"kind": "overloaded", "message": "Overloaded"}}]}]})")));
    server->enqueue(sse_reply(api, scripted(R"({"responses":[{"steps":[
        {"text": "partial"}, {"error": {"kind": "overloaded", "message": "Overloaded"}}],
        "usage": {"inputTokens": 5, "outputTokens": 2}}]})")));
    server->enqueue(sse_reply(api, text_and_call()));
    auto out = call(config_for(api, *server));
    REQUIRE(out.response().error.has_value());
    CHECK(out.response().error->kind == llm::ErrorKind::overloaded);
    CHECK(out.response().error->retryable);
    CHECK(text_of(out.response()) == "partial");
    CHECK(server->requests().size() == 2);
    std::size_t errors = 0;
    for (const auto& event : out.events)
      errors += std::holds_alternative<llm::StreamError>(event) ? 1 : 0;
    CHECK(errors == 1);  // the retried attempt's error never reached the caller
  }
}

TEST_CASE("http provider failed Responses usage is still counted", "[provider][inject]") {
  auto server = FakeProviderServer::start();
  server->enqueue(sse_reply(llm::WireApi::openai_responses, scripted(R"({"responses":[{"steps":[
      {"error": {"kind": "server", "message": "boom"}}], "usage": {"inputTokens": 100, "outputTokens": 7}}]})")));
  server->enqueue(sse_reply(llm::WireApi::openai_responses, scripted(R"({"responses":[{"steps":[
      {"text": "ok"}], "usage": {"inputTokens": 100, "outputTokens": 3}}]})")));
  auto out = call(config_for(llm::WireApi::openai_responses, *server));
  CHECK_FALSE(out.response().error.has_value());
  CHECK(out.response().usage.input_tokens == 200);  // both attempts were billed
  CHECK(out.response().usage.output_tokens == 10);
}

TEST_CASE("http provider slow first byte times out, is retried, and succeeds",
          "[provider][inject]") {
  auto server = FakeProviderServer::start();
  FakeReply slow = sse_reply(llm::WireApi::openai_chat, text_and_call());
  slow.first_byte_delay = std::chrono::milliseconds(1500);
  server->enqueue(slow);
  server->enqueue(sse_reply(llm::WireApi::openai_chat, text_and_call()));
  auto config = config_for(llm::WireApi::openai_chat, *server);
  config.http.timeouts.first_byte = std::chrono::milliseconds(200);
  auto out = call(config);
  CHECK_FALSE(out.response().error.has_value());
  CHECK(server->requests().size() == 2);

  auto only = FakeProviderServer::start();
  only->enqueue(slow);
  config = config_for(llm::WireApi::openai_chat, *only);
  config.http.timeouts.first_byte = std::chrono::milliseconds(200);
  config.retry.max_attempts = 1;
  auto failed = call(config);
  REQUIRE(failed.response().error.has_value());
  CHECK(failed.response().error->kind == llm::ErrorKind::network);
  CHECK(failed.response().error->message.find("timed out") != std::string::npos);
}

TEST_CASE("http provider stream that stalls after output ends at the idle timeout, not retried",
          "[provider][inject]") {
  for (auto api : all_apis) {
    INFO(llm::to_string(api));
    auto server = FakeProviderServer::start();
    FakeReply stalled = sse_reply(api, text_and_call());
    stalled.stall_after_chunks = 3;  // the text has started
    server->enqueue(stalled);
    server->enqueue(sse_reply(api, text_and_call()));
    auto config = config_for(api, *server);
    config.http.timeouts.idle = std::chrono::milliseconds(300);
    const auto started = std::chrono::steady_clock::now();
    auto out = call(config);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
    REQUIRE(out.response().error.has_value());
    CHECK(out.response().error->kind == llm::ErrorKind::network);
    CHECK(out.response().error->message.find("timed out") != std::string::npos);
    CHECK(calls_of(out.response()).empty());  // nothing half-received is run
    CHECK(server->requests().size() == 1);
  }
}

TEST_CASE("http provider slow drip: live within the idle timeout, bounded by the total",
          "[provider][inject]") {
  // Each event well within the idle timeout: the stream completes.
  auto server = FakeProviderServer::start();
  FakeReply drip = sse_reply(llm::WireApi::anthropic_messages, text_and_call());
  drip.chunk_delay = std::chrono::milliseconds(60);
  server->enqueue(drip);
  auto config = config_for(llm::WireApi::anthropic_messages, *server);
  config.http.timeouts.idle = std::chrono::milliseconds(400);
  auto out = call(config);
  CHECK_FALSE(out.response().error.has_value());
  CHECK(calls_of(out.response()).size() == 1);

  // The same drip never goes idle, but one response may take only so long.
  auto bounded = FakeProviderServer::start();
  bounded->enqueue(drip);
  config = config_for(llm::WireApi::anthropic_messages, *bounded);
  config.http.timeouts.idle = std::chrono::milliseconds(400);
  config.http.timeouts.total = std::chrono::milliseconds(250);
  config.retry.max_attempts = 1;
  auto cut = call(config);
  REQUIRE(cut.response().error.has_value());
  CHECK(cut.response().error->message.find("the limit for one response") != std::string::npos);
  CHECK(calls_of(cut.response()).empty());
}

TEST_CASE("http provider 429 storm: each retry-after honoured, then the typed error",
          "[provider][retry]") {
  auto server = FakeProviderServer::start();
  for (int i = 0; i < 6; ++i) server->enqueue(ava::test::http_error_reply(429, 0));
  auto config = config_for(llm::WireApi::openai_responses, *server);
  config.retry.max_attempts = 4;
  const auto started = std::chrono::steady_clock::now();
  auto out = call(config);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
  REQUIRE(out.response().error.has_value());
  CHECK(out.response().error->kind == llm::ErrorKind::rate_limited);
  CHECK(server->requests().size() == 4);  // never more than the policy allows
}

TEST_CASE("retry delay grows exponentially with jitter and honours retry-after", "[retry]") {
  llm::RetryPolicy policy{.max_attempts = 5,
                          .base_delay = std::chrono::milliseconds(100),
                          .max_delay = std::chrono::milliseconds(1000)};
  CHECK(llm::retry_delay(policy, 0, std::nullopt, 0.0) == std::chrono::milliseconds(50));
  CHECK(llm::retry_delay(policy, 0, std::nullopt, 1.0) == std::chrono::milliseconds(100));
  CHECK(llm::retry_delay(policy, 2, std::nullopt, 1.0) == std::chrono::milliseconds(400));
  CHECK(llm::retry_delay(policy, 10, std::nullopt, 1.0) == std::chrono::milliseconds(1000));
  CHECK(llm::retry_delay(policy, 0, std::chrono::milliseconds(700), 0.5) ==
        std::chrono::milliseconds(700));
  CHECK_FALSE(llm::retry_delay(policy, 0, std::chrono::milliseconds(5000), 0.5).has_value());
}
