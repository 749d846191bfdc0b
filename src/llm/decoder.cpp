#include "ava/llm/decoder.hpp"

#include <fmt/format.h>

#include "llm/decoder_base.hpp"
#include "llm/decoders.hpp"

namespace ava::llm {

Result<WireApi> parse_wire_api(std::string_view name) {
  if (name == "anthropic") return WireApi::anthropic_messages;
  if (name == "openai") return WireApi::openai_chat;
  if (name == "openai-responses") return WireApi::openai_responses;
  return fail(ErrorCode::invalid_argument,
              fmt::format("unknown wire format '{}' (anthropic, openai, openai-responses)", name));
}

std::string_view to_string(WireApi api) {
  switch (api) {
    case WireApi::anthropic_messages: return "anthropic";
    case WireApi::openai_chat: return "openai";
    case WireApi::openai_responses: return "openai-responses";
  }
  return "unknown";
}

std::unique_ptr<StreamDecoder> make_stream_decoder(WireApi api, EventSink sink) {
  switch (api) {
    case WireApi::anthropic_messages: return detail::make_anthropic_decoder(std::move(sink));
    case WireApi::openai_chat: return detail::make_chat_decoder(std::move(sink));
    case WireApi::openai_responses: return detail::make_responses_decoder(std::move(sink));
  }
  return detail::make_anthropic_decoder(std::move(sink));
}

Response decode_sse_body(WireApi api, std::string_view body, const EventSink& sink,
                         std::size_t chunk_size) {
  auto decoder = make_stream_decoder(api, sink);
  transport::SseParser parser;
  std::vector<transport::SseEvent> events;
  std::optional<Error> framing_error;
  auto deliver = [&] {
    for (const auto& event : events) {
      if (decoder->finished()) break;
      decoder->on_event(event);
    }
    events.clear();
  };
  if (chunk_size == 0) chunk_size = body.size() + 1;
  for (std::size_t at = 0; at < body.size() && !decoder->finished(); at += chunk_size) {
    auto fed = parser.feed(body.substr(at, chunk_size), events);
    deliver();
    if (!fed) {
      framing_error = fed.error();
      break;
    }
  }
  if (!framing_error && !decoder->finished()) {
    if (auto flushed = parser.finish(events); !flushed) framing_error = flushed.error();
    deliver();
  }
  if (framing_error && !decoder->finished()) {
    // Feed a synthetic provider-neutral error through the sink and response.
    Response response = decoder->finish();
    if (!response.error) {
      StreamError error{.kind = ErrorKind::protocol, .message = framing_error->message};
      if (sink) sink(error);
      response.error = error;
      response.stop = Stop{.reason = StopReason::error, .provider_reason = {}};
    }
    return response;
  }
  return decoder->finish();
}

}  // namespace ava::llm
