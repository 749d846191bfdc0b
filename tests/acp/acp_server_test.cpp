// The JSON-RPC side of `ava acp` on string streams: what is answered at
// once (initialize, errors, refused sessions). Sessions with real agents
// are tests/app/acp_test.py's.
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/acp/server.hpp"

using nlohmann::json;
using namespace ava;

namespace {

class RefusingOpener final : public acp::ConversationOpener {
 public:
  Result<std::unique_ptr<acp::Conversation>> open(const acp::OpenRequest& request) override {
    opened.push_back(request);
    return fail(ErrorCode::not_found, "no such conversation");
  }
  std::vector<acp::OpenRequest> opened;
};

std::vector<json> answers(const std::string& input, RefusingOpener& opener) {
  std::istringstream in(input);
  std::ostringstream out;
  acp::serve(in, out, opener, {.version = "9.9"});
  std::vector<json> lines;
  std::istringstream written(out.str());
  for (std::string line; std::getline(written, line);) lines.push_back(json::parse(line));
  return lines;
}

}  // namespace

TEST_CASE("initialize names the protocol version and what Ava offers", "[acp]") {
  RefusingOpener opener;
  const auto lines =
      answers(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}})"
              "\n",
              opener);
  REQUIRE(lines.size() == 1);
  const auto& result = lines[0]["result"];
  CHECK(lines[0]["id"] == 1);
  CHECK(result["protocolVersion"] == acp::protocol_version);
  CHECK(result["agentCapabilities"]["loadSession"] == true);
  CHECK(result["agentCapabilities"]["promptCapabilities"]["embeddedContext"] == true);
  CHECK(result["agentInfo"] == json{{"name", "ava"}, {"title", "Ava"}, {"version", "9.9"}});
}

TEST_CASE("malformed messages get JSON-RPC errors and the stream goes on", "[acp]") {
  RefusingOpener opener;
  const std::string huge(acp::max_message_bytes + 10, 'x');
  const auto lines = answers(
      "{not json\n"
      "[1,2]\n"
      "\n" +
          huge + "\n" +
          R"({"jsonrpc":"2.0","id":"a","method":"nope"})"
          "\n"
          R"({"jsonrpc":"2.0","id":2,"method":7})"
          "\n"
          R"({"jsonrpc":"2.0","id":3,"method":"session/new","params":[]})"
          "\n"
          R"({"jsonrpc":"2.0","id":{"x":1},"method":"initialize"})"
          "\n"
          R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"none"}})"
          "\n"
          R"({"jsonrpc":"2.0","id":99,"result":{"outcome":{"outcome":"cancelled"}}})"
          "\n"
          R"({"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}})"
          "\n",
      opener);
  std::vector<int> codes;
  for (const auto& line : lines) codes.push_back(line["error"]["code"].get<int>());
  CHECK(codes == std::vector<int>{-32700, -32700, -32700, -32601, -32600, -32602, -32600, -32602});
  CHECK(lines[3]["id"] == "a");
  CHECK(lines[2]["error"]["message"] == "message too large");
  CHECK(opener.opened.empty());
}

TEST_CASE("sessions need an absolute folder, and a refused open is an error answer", "[acp]") {
  RefusingOpener opener;
  const auto lines = answers(
      R"({"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"rel","mcpServers":[]}})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"session/load","params":{"cwd":"/w","mcpServers":[]}})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"session/load","params":{"cwd":"/w","sessionId":"old","mcpServers":[]}})"
      "\n",
      opener);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["error"]["message"] == "cwd must be an absolute path");
  CHECK(lines[1]["error"]["message"] == "sessionId is required");
  CHECK(lines[2]["error"]["message"] == "no such conversation");
  REQUIRE(opener.opened.size() == 1);
  CHECK(opener.opened[0].cwd == "/w");
  CHECK(opener.opened[0].session_id == "old");
}
