#include "ava/llm/mock_provider.hpp"

#include <ranges>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/utf8.hpp"

namespace ava::llm {

namespace asio = boost::asio;

namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

// The echo mode's reply: the last user message quoted (cut at a character
// boundary), or what the last message carried instead.
std::string echo_text(const Request& request) {
  constexpr std::size_t quote_limit = 200;
  for (const Message& message : std::views::reverse(request.messages)) {
    std::string text;
    std::size_t results = 0;
    for (const auto& block : message.content) {
      if (const auto* part = std::get_if<TextBlock>(&block)) text += part->text;
      if (std::holds_alternative<ToolResultBlock>(block)) ++results;
    }
    if (message.role == Role::user && !text.empty()) {
      if (text.size() > quote_limit) {
        text = std::string(base::utf8::truncate(text, quote_limit)) + "...";
      }
      return "mock: you said \"" + text + "\"";
    }
    if (results > 0) return "mock: received " + std::to_string(results) + " tool result(s)";
  }
  return "mock: no message to answer";
}

}  // namespace

asio::awaitable<Result<Response>> MockProvider::stream(const Request& request, EventSink on_event) {
  requests_.push_back(request);
  auto emit = [&](const StreamEvent& event) {
    if (on_event) on_event(event);
  };
  Response response;
  response.message.role = Role::assistant;
  if (echo_) {
    TextBlock reply{echo_text(request)};
    emit(TextDelta{reply.text});
    response.message.content.emplace_back(std::move(reply));
    response.stop = Stop{.reason = StopReason::end_turn, .provider_reason = "end_turn"};
    emit(UsageReport{response.usage});
    emit(response.stop);
    co_return response;
  }
  if (next_ >= script_.responses.size()) {
    StreamError error{.kind = ErrorKind::invalid_request, .message = "mock script exhausted"};
    emit(error);
    response.error = error;
    response.stop = Stop{.reason = StopReason::error, .provider_reason = "exhausted"};
    emit(response.stop);
    co_return response;
  }
  const MockResponse& scripted = script_.responses[next_++];
  bool has_calls = false;
  // As with real providers, calls of a response the output limit ended are
  // cut: they start and stream, never complete, and are reported apart.
  const bool cut = scripted.stop && scripted.stop->reason == StopReason::max_tokens;
  auto executor = co_await asio::this_coro::executor;
  for (const auto& step : scripted.steps) {
    if (response.error) break;
    if (const auto* delay = std::get_if<MockDelay>(&step)) {
      asio::steady_timer timer(executor, delay->duration);
      auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return fail(ErrorCode::cancelled, "mock stream cancelled");
      continue;
    }
    std::visit(Overloaded{
                   [&](const TextBlock& text) {
                     emit(TextDelta{text.text});
                     response.message.content.emplace_back(text);
                   },
                   [&](const ThinkingBlock& thinking) {
                     emit(ThinkingDelta{thinking.text});
                     response.message.content.emplace_back(thinking);
                   },
                   [&](const ToolCallBlock& call) {
                     emit(ToolCallStart{.id = call.id, .name = call.name});
                     emit(ToolCallDelta{.id = call.id, .arguments_fragment = call.arguments});
                     if (cut) {
                       response.cut_calls.push_back(call);
                       return;
                     }
                     emit(ToolCallComplete{call});
                     response.message.content.emplace_back(call);
                     has_calls = true;
                   },
                   [&](const StreamError& error) {
                     emit(error);
                     response.error = error;
                   },
                   [](const MockDelay&) {},
               },
               step);
  }
  if (response.error) {
    // As with real providers, nothing from a failed response gets executed.
    std::erase_if(response.message.content, [](const ContentBlock& block) {
      return std::holds_alternative<ToolCallBlock>(block);
    });
    response.stop = Stop{.reason = StopReason::error, .provider_reason = "error"};
    response.cut_calls.clear();
  } else if (scripted.stop) {
    response.stop = *scripted.stop;
  } else {
    response.stop = has_calls ? Stop{.reason = StopReason::tool_use, .provider_reason = "tool_use"}
                              : Stop{.reason = StopReason::end_turn, .provider_reason = "end_turn"};
  }
  response.usage = scripted.usage;
  emit(UsageReport{response.usage});
  emit(response.stop);
  co_return response;
}

}  // namespace ava::llm
