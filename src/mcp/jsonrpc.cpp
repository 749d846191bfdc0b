#include "ava/mcp/jsonrpc.hpp"

#include <fmt/format.h>

#include "ava/base/json.hpp"

namespace ava::mcp::jsonrpc {

using nlohmann::json;

namespace {

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

Result<json> parse(std::string_view text, std::size_t max_bytes) {
  return base::parse_json(text, base::JsonLimits{.max_depth = max_depth, .max_bytes = max_bytes});
}

Result<Message> classify(const json& value) {
  if (!value.is_object()) return fail(ErrorCode::parse, "JSON-RPC message is not an object");
  if (base::json_value(value, "jsonrpc", "") != "2.0") {
    return fail(ErrorCode::parse, R"(JSON-RPC message without "jsonrpc": "2.0")");
  }
  Message message;
  const auto method = value.find("method");
  const auto id = value.find("id");
  if (method != value.end()) {
    if (!method->is_string()) return fail(ErrorCode::parse, "JSON-RPC method is not a string");
    message.method = method->get<std::string>();
    if (const auto params = value.find("params"); params != value.end()) message.params = *params;
    if (id == value.end()) {
      message.kind = Message::Kind::notification;
      return message;
    }
    if (!valid_id(*id))
      return fail(ErrorCode::parse, "JSON-RPC request id is not a string or integer");
    message.kind = Message::Kind::request;
    message.id = *id;
    return message;
  }
  if (id == value.end())
    return fail(ErrorCode::parse, "JSON-RPC message has neither method nor id");
  message.id = *id;
  if (const auto result = value.find("result"); result != value.end()) {
    if (!valid_id(*id))
      return fail(ErrorCode::parse, "JSON-RPC response id is not a string or integer");
    message.kind = Message::Kind::response;
    message.result = *result;
    return message;
  }
  const auto error = value.find("error");
  if (error == value.end() || !error->is_object()) {
    return fail(ErrorCode::parse, "JSON-RPC response has neither result nor error");
  }
  message.kind = Message::Kind::error;
  message.error.code = base::json_value(*error, "code", internal_error);
  message.error.message = base::json_value(*error, "message", "");
  if (const auto data = error->find("data"); data != error->end()) message.error.data = *data;
  return message;
}

json make_request(std::int64_t id, std::string_view method, json params) {
  json message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return message;
}

json make_notification(std::string_view method, json params) {
  json message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  return message;
}

json make_response(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error(const json& id, int code, std::string_view message) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

}  // namespace ava::mcp::jsonrpc
