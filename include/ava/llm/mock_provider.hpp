#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ava/llm/provider.hpp"

namespace ava::llm {

// A scripted model for tests and for trying Ava offline. The script is JSON
// (format in docs/providers.md): a list of responses, one per stream() call,
// each a list of steps (text, thinking, tool calls, delays, an error) plus an
// optional stop reason and usage.
struct MockDelay {
  std::chrono::milliseconds duration{0};
};

struct MockResponse {
  std::vector<std::variant<TextBlock, ThinkingBlock, ToolCallBlock, MockDelay, StreamError>> steps;
  std::optional<Stop> stop;  // default: tool_use when it has tool calls, else end_turn
  Usage usage;
};

struct MockScript {
  std::vector<MockResponse> responses;
};

Result<MockScript> parse_mock_script(std::string_view json_text);
Result<MockScript> load_mock_script(const std::filesystem::path& path);

class MockProvider final : public Provider {
 public:
  explicit MockProvider(MockScript script) : script_(std::move(script)) {}
  // Echo mode, for trying Ava with nothing set up: every request is answered
  // with one short text that quotes the last user message, then end_turn.
  MockProvider() : echo_(true) {}

  // Plays the next scripted response; past the end of the script the
  // response is an invalid_request error ("mock script exhausted").
  boost::asio::awaitable<Result<Response>> stream(const Request& request,
                                                  EventSink on_event) override;

  // The requests received so far, for tests that check what was sent.
  const std::vector<Request>& requests() const { return requests_; }

 private:
  MockScript script_;
  bool echo_ = false;
  std::size_t next_ = 0;
  std::vector<Request> requests_;
};

}  // namespace ava::llm
