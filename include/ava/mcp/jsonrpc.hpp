#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"

// JSON-RPC 2.0 as MCP uses it: one JSON object per message, no batches
// (removed in 2025-06-18; older servers never send them unasked).
namespace ava::mcp::jsonrpc {

// Standard error codes (JSON-RPC 2.0, section 5.1).
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;

struct RpcError {
  int code = internal_error;
  std::string message;
  nlohmann::json data;  // null when absent
};

// How deep a message from a server may nest. Deep enough for any schema or
// structured result; a value is copied, compared and printed recursively,
// so a peer must not choose the depth (300000 levels overflow the stack).
inline constexpr std::size_t max_depth = 128;

// Decodes one message from a peer (a stdio line, an HTTP body, an SSE
// event) within max_depth and `max_bytes`; never throws.
Result<nlohmann::json> parse(std::string_view text, std::size_t max_bytes);

// A received message, classified by its shape.
struct Message {
  enum class Kind { request, notification, response, error };
  Kind kind = Kind::notification;
  nlohmann::json id;      // request, response, error (may be null for an error)
  std::string method;     // request, notification
  nlohmann::json params;  // request, notification; null when absent
  nlohmann::json result;  // response
  RpcError error;         // error
};

// Classifies a decoded JSON value. Anything that is not one of the four
// shapes is a parse error naming what is wrong.
Result<Message> classify(const nlohmann::json& value);

// Builders for what the client sends. Ids are the client's own counter;
// responses echo the peer's id exactly (the server numbers its requests in
// its own space, overlapping ours).
nlohmann::json make_request(std::int64_t id, std::string_view method, nlohmann::json params);
nlohmann::json make_notification(std::string_view method, nlohmann::json params);
nlohmann::json make_response(const nlohmann::json& id, nlohmann::json result);
nlohmann::json make_error(const nlohmann::json& id, int code, std::string_view message);

}  // namespace ava::mcp::jsonrpc
