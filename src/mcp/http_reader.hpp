#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/transport/http_client.hpp"
#include "ava/transport/sse.hpp"

namespace ava::mcp {

// Decodes the body of one Streamable HTTP response: a JSON message (or a
// batch of them) or an SSE stream whose events carry one message each. Each
// message goes to `deliver` as soon as it is complete. Events with empty or
// non-JSON data (the priming event a stream opens with) are skipped; their
// ids still count for Last-Event-ID.
class ResponseReader {
 public:
  using Deliver = std::function<void(nlohmann::json message)>;
  ResponseReader(std::size_t max_message, Deliver deliver);

  // Picks the decoder from Content-Type. A 2xx that is neither JSON nor an
  // event stream is a protocol error; other statuses are left to the caller.
  Result<void> head(const transport::HttpResponse& head);
  Result<void> body(std::string_view chunk);
  Result<void> finish();

  bool is_stream() const { return kind_ == Kind::stream; }
  const std::string& last_event_id() const { return parser_.last_event_id(); }
  // The stream's `retry:` field: how long to wait before reconnecting.
  std::optional<std::int64_t> retry_ms() const { return parser_.retry_ms(); }

 private:
  enum class Kind { none, json, stream };
  void deliver_value(nlohmann::json value);
  void deliver_event(std::string_view data);

  std::size_t max_message_;
  Deliver deliver_;
  Kind kind_ = Kind::none;
  std::string json_;
  transport::SseParser parser_;
};

}  // namespace ava::mcp
