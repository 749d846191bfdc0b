#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/llm/decoder.hpp"
#include "ava/transport/sse.hpp"

namespace ava::test {

// Builds an SSE body from JSON payloads, framed as each provider frames it.
class SseBody {
 public:
  // Anthropic and Responses: "event: <type>" + data.
  SseBody& typed(const nlohmann::json& payload) {
    auto type = payload.value("type", std::string{});
    body_ += *transport::encode_sse({.event = type, .data = payload.dump()});
    return *this;
  }
  // Chat: data only.
  SseBody& data(const nlohmann::json& payload) {
    body_ += *transport::encode_sse({.data = payload.dump()});
    return *this;
  }
  SseBody& raw(const std::string& text) {
    body_ += text;
    return *this;
  }
  const std::string& str() const { return body_; }

 private:
  std::string body_;
};

// Decodes a body and keeps every emitted event.
struct Decoded {
  llm::Response response;
  std::vector<llm::StreamEvent> events;

  template <class T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const auto& event : events) {
      if (const auto* typed = std::get_if<T>(&event)) out.push_back(*typed);
    }
    return out;
  }
};

inline Decoded decode(llm::WireApi api, const std::string& body) {
  Decoded decoded;
  decoded.response = llm::decode_sse_body(
      api, body, [&](const llm::StreamEvent& event) { decoded.events.push_back(event); });
  return decoded;
}

}  // namespace ava::test
