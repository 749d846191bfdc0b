#include "mcp/http_reader.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "ava/base/text.hpp"
#include "ava/mcp/jsonrpc.hpp"

namespace ava::mcp {

using nlohmann::json;

ResponseReader::ResponseReader(std::size_t max_message, Deliver deliver)
    : max_message_(max_message), deliver_(std::move(deliver)), parser_(max_message) {}

Result<void> ResponseReader::head(const transport::HttpResponse& head) {
  if (head.status < 200 || head.status >= 300 || head.status == 202) return {};
  const auto type = base::ascii_lower(head.header("content-type"));
  if (type.starts_with("text/event-stream")) {
    kind_ = Kind::stream;
  } else if (type.starts_with("application/json")) {
    kind_ = Kind::json;
  } else if (!type.empty()) {
    return fail(ErrorCode::protocol, fmt::format("MCP server answered with Content-Type {}",
                                                 head.header("content-type")));
  }
  return {};
}

Result<void> ResponseReader::body(std::string_view chunk) {
  if (kind_ == Kind::json || kind_ == Kind::none) {
    if (json_.size() + chunk.size() > max_message_) {
      return fail(ErrorCode::limit_exceeded,
                  fmt::format("MCP answer exceeds {} bytes", max_message_));
    }
    json_.append(chunk);
    return {};
  }
  std::vector<transport::SseEvent> events;
  AVA_TRY_VOID(parser_.feed(chunk, events));
  for (auto& event : events) {
    if (event.data.empty()) continue;  // the priming event
    deliver_event(event.data);
  }
  return {};
}

Result<void> ResponseReader::finish() {
  if (kind_ == Kind::stream) {
    std::vector<transport::SseEvent> events;
    AVA_TRY_VOID(parser_.finish(events));
    for (auto& event : events) deliver_event(event.data);
    return {};
  }
  if (json_.find_first_not_of(" \t\r\n") == std::string::npos) return {};
  auto value = jsonrpc::parse(json_, max_message_);
  if (!value) {
    return fail(ErrorCode::protocol,
                fmt::format("MCP server sent unusable JSON: {}", value.error().message));
  }
  deliver_value(std::move(*value));
  return {};
}

void ResponseReader::deliver_event(std::string_view data) {
  // Not JSON (or too deep): skipped like the priming event; a request whose
  // answer it was fails when the stream ends without one.
  if (auto value = jsonrpc::parse(data, max_message_)) deliver_value(std::move(*value));
}

void ResponseReader::deliver_value(json value) {
  if (value.is_array()) {
    for (auto& item : value) deliver_(std::move(item));  // a batch from an older server
  } else {
    deliver_(std::move(value));
  }
}

}  // namespace ava::mcp
