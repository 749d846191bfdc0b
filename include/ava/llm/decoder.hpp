#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>

#include "ava/base/error.hpp"
#include "ava/llm/stream.hpp"
#include "ava/transport/sse.hpp"

namespace ava::llm {

// The three streaming wire formats Ava speaks.
enum class WireApi {
  anthropic_messages,  // POST /v1/messages
  openai_chat,         // POST /v1/chat/completions (OpenAI and compatible servers)
  openai_responses,    // POST /v1/responses (Codex)
};

// "anthropic", "openai" and "openai-responses", as `--provider` spells them.
Result<WireApi> parse_wire_api(std::string_view name);
std::string_view to_string(WireApi api);

using EventSink = std::function<void(const StreamEvent&)>;

// Turns one provider's SSE events into neutral StreamEvents and assembles the
// Response. Pure: no I/O, so the HTTP client, the fake server's tests and
// `ava debug stream` share it. Feed events in order; stop feeding once
// finished() is true; then call finish() exactly once.
//
// Whatever the provider: a stream that ends before its terminal event is a
// retryable protocol error; a response that fails carries its usage (it is
// still billed) and no tool calls, so nothing from it gets executed.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  StreamDecoder() = default;
  StreamDecoder(const StreamDecoder&) = delete;
  StreamDecoder& operator=(const StreamDecoder&) = delete;

  virtual void on_event(const transport::SseEvent& event) = 0;
  // True once the terminal event arrived.
  virtual bool finished() const = 0;
  // End of input: emits the usage and stop events and returns the response.
  virtual Response finish() = 0;
};

std::unique_ptr<StreamDecoder> make_stream_decoder(WireApi api, EventSink sink);

// Parses a whole captured SSE body. With chunk_size > 0 the body is fed to
// the SSE parser in pieces of that size (tests prove splits do not matter).
// An SSE framing error (an oversized event) ends the response with an error.
Response decode_sse_body(WireApi api, std::string_view body, const EventSink& sink,
                         std::size_t chunk_size = 0);

}  // namespace ava::llm
