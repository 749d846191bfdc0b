#include <catch2/catch.hpp>

#include <chrono>
#include <optional>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/llm/mock_provider.hpp"

namespace asio = boost::asio;
namespace llm = ava::llm;

namespace {

// Runs one stream() call to completion on a fresh io_context.
ava::Result<llm::Response> run_stream(llm::MockProvider& provider,
                                      std::vector<llm::StreamEvent>* events = nullptr) {
  asio::io_context io;
  std::optional<ava::Result<llm::Response>> result;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        // Named, not temporaries: g++ 12 destroys temporaries in a co_await
        // expression twice.
        llm::Request request{.model = "mock"};
        llm::EventSink sink = [&](const llm::StreamEvent& event) {
          if (events != nullptr) events->push_back(event);
        };
        result = co_await provider.stream(request, sink);
      },
      asio::detached);
  io.run();
  REQUIRE(result.has_value());
  return std::move(*result);
}

constexpr std::string_view script_text = R"({
  "responses": [
    {"steps": [{"thinking": "plan", "signature": "s1"},
               {"text": "Reading the file."},
               {"toolCall": {"id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}}],
     "usage": {"inputTokens": 10, "outputTokens": 5}},
    {"steps": [{"delayMs": 5}, {"text": "Done."}]},
    {"steps": [{"text": "partial"}, {"toolCall": {"name": "x"}},
               {"error": {"kind": "overloaded", "message": "Overloaded", "retryable": true}}]}
  ]
})";

}  // namespace

TEST_CASE("mock provider plays scripted responses in order", "[mock]") {
  auto script = llm::parse_mock_script(script_text);
  REQUIRE(script.has_value());
  llm::MockProvider provider(std::move(*script));

  std::vector<llm::StreamEvent> events;
  auto first = run_stream(provider, &events);
  REQUIRE(first.has_value());
  CHECK(first->stop.reason == llm::StopReason::tool_use);
  REQUIRE(first->message.content.size() == 3);
  auto call = std::get<llm::ToolCallBlock>(first->message.content[2]);
  CHECK(call.id == "call_1");
  CHECK(call.arguments == R"({"path":"a.txt"})");
  CHECK(first->usage.input_tokens == 10);
  CHECK(std::holds_alternative<llm::Stop>(events.back()));

  auto second = run_stream(provider);
  REQUIRE(second.has_value());
  CHECK(second->stop.reason == llm::StopReason::end_turn);
  CHECK(std::get<llm::TextBlock>(second->message.content[0]).text == "Done.");

  auto third = run_stream(provider);
  REQUIRE(third.has_value());
  REQUIRE(third->error.has_value());
  CHECK(third->error->kind == llm::ErrorKind::overloaded);
  CHECK(third->message.content.size() == 1);  // the call of a failed response is dropped

  auto exhausted = run_stream(provider);
  REQUIRE(exhausted.has_value());
  REQUIRE(exhausted->error.has_value());
  CHECK(exhausted->error->message == "mock script exhausted");
  CHECK(provider.requests().size() == 4);
}

TEST_CASE("mock provider delay is cancellable from another coroutine", "[mock]") {
  auto script =
      llm::parse_mock_script(R"({"responses":[{"steps":[{"delayMs":60000},{"text":"late"}]}]})");
  REQUIRE(script.has_value());
  llm::MockProvider provider(std::move(*script));
  asio::io_context io;
  asio::cancellation_signal cancel;
  std::optional<ava::Result<llm::Response>> result;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        llm::Request request;
        llm::EventSink sink;
        result = co_await provider.stream(request, sink);
      },
      asio::bind_cancellation_slot(cancel.slot(), asio::detached));
  asio::steady_timer timer(io, std::chrono::milliseconds(20));
  timer.async_wait(
      [&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
  auto started = std::chrono::steady_clock::now();
  io.run();
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  REQUIRE(result.has_value());
  REQUIRE_FALSE(result->has_value());
  CHECK(result->error().code == ava::ErrorCode::cancelled);
}

TEST_CASE("mock script errors name the response at fault", "[mock]") {
  auto bad = llm::parse_mock_script(R"({"responses":[{"steps":[{"sing":"x"}]}]})");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("mock response 0") != std::string::npos);
  CHECK_FALSE(llm::parse_mock_script("{not json").has_value());
  CHECK_FALSE(
      llm::parse_mock_script(R"({"responses":[{"steps":[],"stopReason":"nope"}]})").has_value());
}

namespace {

std::string echo_reply(llm::MockProvider& provider, std::vector<llm::Message> messages,
                       std::vector<llm::StreamEvent>* events = nullptr) {
  asio::io_context io;
  std::optional<ava::Result<llm::Response>> result;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        llm::Request request{.model = "mock", .messages = std::move(messages)};
        llm::EventSink sink = [&](const llm::StreamEvent& event) {
          if (events != nullptr) events->push_back(event);
        };
        result = co_await provider.stream(request, sink);
      },
      asio::detached);
  io.run();
  REQUIRE(result.has_value());
  REQUIRE(result->has_value());
  REQUIRE((*result)->message.content.size() == 1);
  CHECK((*result)->stop.reason == llm::StopReason::end_turn);
  return std::get<llm::TextBlock>((*result)->message.content[0]).text;
}

llm::Message user(std::string text) {
  return llm::Message{.role = llm::Role::user, .content = {llm::TextBlock{std::move(text)}}};
}

}  // namespace

TEST_CASE("mock provider without a script echoes the last user message", "[mock]") {
  llm::MockProvider provider;
  std::vector<llm::StreamEvent> events;
  CHECK(echo_reply(provider, {user("first"), user("second")}, &events) ==
        "mock: you said \"second\"");
  REQUIRE(events.size() == 3);
  CHECK(std::get<llm::TextDelta>(events[0]).text == "mock: you said \"second\"");
  CHECK(std::holds_alternative<llm::UsageReport>(events[1]));
  CHECK(std::holds_alternative<llm::Stop>(events[2]));

  // Answers keep coming: echo mode never runs out.
  llm::Message results{
      .role = llm::Role::tool,
      .content = {llm::ToolResultBlock{.call_id = "a"}, llm::ToolResultBlock{.call_id = "b"}}};
  CHECK(echo_reply(provider, {user("go"), results}) == "mock: received 2 tool result(s)");
  CHECK(echo_reply(provider, {}) == "mock: no message to answer");
  CHECK(provider.requests().size() == 3);

  // Long messages are cut, never inside a UTF-8 character.
  std::string long_text(199, 'a');
  long_text += "\xC3\xA9 and more";  // é straddles the 200-byte cut
  CHECK(echo_reply(provider, {user(long_text)}) ==
        "mock: you said \"" + std::string(199, 'a') + "...\"");
}
