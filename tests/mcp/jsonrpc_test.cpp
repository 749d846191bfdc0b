#include <catch2/catch.hpp>

#include "ava/mcp/jsonrpc.hpp"

using ava::mcp::jsonrpc::classify;
using ava::mcp::jsonrpc::Message;
using nlohmann::json;

TEST_CASE("jsonrpc classifies the four message shapes", "[tool][mcp][jsonrpc]") {
  auto request = classify(json::parse(R"({"jsonrpc":"2.0","id":0,"method":"roots/list"})"));
  REQUIRE(request.has_value());
  CHECK(request->kind == Message::Kind::request);
  CHECK(request->id == 0);
  CHECK(request->method == "roots/list");

  auto note = classify(json::parse(
      R"({"method":"notifications/progress","params":{"progress":1},"jsonrpc":"2.0"})"));
  REQUIRE(note.has_value());
  CHECK(note->kind == Message::Kind::notification);
  CHECK(note->params["progress"] == 1);

  auto answer = classify(json::parse(R"({"result":{},"jsonrpc":"2.0","id":7})"));
  REQUIRE(answer.has_value());
  CHECK(answer->kind == Message::Kind::response);
  CHECK(answer->id == 7);

  auto error = classify(json::parse(
      R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}})"));
  REQUIRE(error.has_value());
  CHECK(error->kind == Message::Kind::error);
  CHECK(error->error.code == -32601);
  CHECK(error->error.message == "Method not found");
}

TEST_CASE("jsonrpc refuses what is not a message", "[tool][mcp][jsonrpc]") {
  CHECK_FALSE(classify(json::object()).has_value());  // the empty priming event of a stream
  CHECK_FALSE(classify(json::array()).has_value());
  CHECK_FALSE(classify(json::parse(R"({"jsonrpc":"1.0","id":1,"result":{}})")).has_value());
  CHECK_FALSE(classify(json::parse(R"({"jsonrpc":"2.0","id":1})")).has_value());
  CHECK_FALSE(classify(json::parse(R"({"jsonrpc":"2.0","method":5})")).has_value());
  CHECK_FALSE(classify(json::parse(R"({"jsonrpc":"2.0","id":1.5,"method":"x"})")).has_value());
}

TEST_CASE("jsonrpc builders leave out absent params and echo ids", "[tool][mcp][jsonrpc]") {
  using namespace ava::mcp::jsonrpc;
  CHECK(make_request(4, "tools/list", json()).dump() ==
        R"({"id":4,"jsonrpc":"2.0","method":"tools/list"})");
  CHECK(make_notification("notifications/initialized", json()).dump() ==
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  CHECK(make_response("abc", json::object()).dump() ==
        R"({"id":"abc","jsonrpc":"2.0","result":{}})");
  CHECK(make_error(0, method_not_found, "Method not found: x")["error"]["code"] == -32601);
}
