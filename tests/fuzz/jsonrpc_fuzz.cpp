// The MCP JSON-RPC reader: what a server sends, as stdio lines and as
// Streamable HTTP bodies (one JSON message or batch, or an SSE stream of
// them), through jsonrpc::parse and jsonrpc::classify.
//
// The input is read three ways: as stdout lines of a stdio server (split as
// the stdio transport splits them: the transport's line reader itself lives
// in a coroutine), as an application/json body and as a text/event-stream
// body fed to ResponseReader in chunks. Checks: nothing throws; a delivered
// message is within jsonrpc::max_depth; classify's answer is consistent with
// the message's shape, and the message the client would build from it
// (make_request, make_notification, make_response, make_error) classifies
// back to the same kind, method, id, params, result and error.
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/json.hpp"
#include "ava/mcp/jsonrpc.hpp"
#include "fuzz/fuzz_check.hpp"
#include "mcp/http_reader.hpp"

namespace {

using nlohmann::json;
namespace jsonrpc = ava::mcp::jsonrpc;
using Kind = jsonrpc::Message::Kind;

constexpr std::size_t kMaxMessage = 1024 * 1024;

std::size_t depth_of(const json& value) {
  if (!value.is_structured()) return 0;
  std::size_t deepest = 0;
  for (const auto& child : value) deepest = std::max(deepest, depth_of(child));
  return deepest + 1;
}

void check_message(const json& value) {
  FUZZ_CHECK(depth_of(value) <= jsonrpc::max_depth);
  const auto message = jsonrpc::classify(value);
  if (!message) {
    FUZZ_CHECK(message.error().code == ava::ErrorCode::parse);
    return;
  }
  FUZZ_CHECK(value.is_object() && value.at("jsonrpc") == "2.0");
  json rebuilt;
  switch (message->kind) {
    case Kind::request:
      FUZZ_CHECK(message->id.is_string() || message->id.is_number_integer());
      FUZZ_CHECK(value.at("method") == message->method);
      rebuilt = jsonrpc::make_notification(message->method, message->params);
      rebuilt["id"] = message->id;
      break;
    case Kind::notification:
      FUZZ_CHECK(!value.contains("id"));
      rebuilt = jsonrpc::make_notification(message->method, message->params);
      break;
    case Kind::response:
      FUZZ_CHECK(message->id.is_string() || message->id.is_number_integer());
      rebuilt = jsonrpc::make_response(message->id, message->result);
      break;
    case Kind::error:
      FUZZ_CHECK(value.at("error").is_object());
      rebuilt = jsonrpc::make_error(message->id, message->error.code, message->error.message);
      break;
  }
  if (message->kind == Kind::request && message->id.is_number_integer() &&
      !message->id.is_number_unsigned()) {
    FUZZ_CHECK(jsonrpc::make_request(message->id.get<std::int64_t>(), message->method,
                                     message->params) == rebuilt);
  }
  const auto again = jsonrpc::classify(rebuilt);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->kind == message->kind);
  FUZZ_CHECK(again->id == message->id);
  FUZZ_CHECK(again->method == message->method);
  FUZZ_CHECK(again->params == message->params);
  FUZZ_CHECK(again->result == message->result);
  FUZZ_CHECK(again->error.code == message->error.code);
  FUZZ_CHECK(again->error.message == message->error.message);
  // The wire form of the rebuilt message reads back the same.
  const auto wire = jsonrpc::parse(rebuilt.dump(), kMaxMessage);
  FUZZ_CHECK(wire && *wire == rebuilt);
}

// stdout of a stdio server: one message per line, CR LF tolerated, blank
// lines and lines that are not JSON skipped.
void read_lines(std::string_view text) {
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (auto message = jsonrpc::parse(line, kMaxMessage)) check_message(*message);
  }
}

void read_http(std::string_view body, std::string_view content_type, std::size_t chunk) {
  std::vector<json> delivered;
  ava::mcp::ResponseReader reader(kMaxMessage,
                                  [&](json message) { delivered.push_back(std::move(message)); });
  ava::transport::HttpResponse head{
      .status = 200, .headers = {{"Content-Type", std::string(content_type)}}, .body = {}};
  FUZZ_CHECK(reader.head(head));
  bool ok = true;
  for (std::size_t at = 0; ok && at < body.size(); at += chunk) {
    ok = reader.body(body.substr(at, chunk)).has_value();
  }
  if (ok) ok = reader.finish().has_value();
  for (const auto& message : delivered) check_message(message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = ava::fuzz::as_text(data, size);
  read_lines(text);
  const std::size_t chunk = 1 + size % 29;
  read_http(text, "application/json", chunk);
  read_http(text, "text/event-stream", chunk);
  return 0;
}
