// A session/prompt's content blocks as the agent's input text.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/acp/prompt.hpp"

using ava::acp::prompt_input;
using nlohmann::json;

namespace {

// The text of a prompt that is accepted.
std::string prompt_text(const json& blocks) { return prompt_input(blocks).value().text; }

constexpr const char* png =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg"
    "==";

}  // namespace
using nlohmann::json;

TEST_CASE("text, links and embedded files become one input", "[acp]") {
  const json blocks = json::parse(R"([
    {"type": "text", "text": "Explain"},
    {"type": "resource_link", "uri": "file:///work/my%20app/main.cpp", "name": "main.cpp"},
    {"type": "resource", "resource": {"uri": "file:///work/a.h", "text": "int a;"}}
  ])");
  CHECK(prompt_text(blocks) ==
        "Explain\n@/work/my app/main.cpp\n<context file=\"/work/a.h\">\nint a;\n</context>");
}

TEST_CASE("prompts Ava does not take are refused with the reason", "[acp]") {
  auto refused = [](const char* text, std::string_view said) {
    const auto result = prompt_input(json::parse(text));
    REQUIRE_FALSE(result);
    INFO(result.error().message);
    CHECK(result.error().message.find(said) != std::string::npos);
  };
  refused(R"({"type": "text"})", "array");
  refused(R"([{"type": "audio", "data": "", "mimeType": "audio/wav"}])",
          "\"audio\" is not supported");
  refused(R"([{"type": "resource", "resource": {"uri": "x", "blob": "AA=="}}])", "text resources");
  refused(R"([{"type": "text", "text": "  \n"}])", "no text");
  refused(R"([])", "no text");
  refused(R"([42])", "not supported");
  // A NUL or a broken escape in a file URI keeps the URI as given.
  CHECK(prompt_text(json::parse(R"([{"type": "resource_link", "uri": "file:///a%00b"}])")) ==
        "@file:///a%00b");
  CHECK(prompt_text(json::parse(R"([{"type": "resource_link", "uri": "file:///a%4"}])")) ==
        "@file:///a%4");
}

#include "ava/acp/mcp_servers.hpp"

TEST_CASE("images become attachments when their bytes are what they say", "[acp]") {
  const json image = {{"type", "image"}, {"mimeType", "image/png"}, {"data", png}};
  const auto input =
      prompt_input(json::array({{{"type", "text"}, {"text", "what is this?"}}, image}));
  REQUIRE(input);
  CHECK(input->text == "what is this?");
  REQUIRE(input->images.size() == 1);
  CHECK(input->images[0].media_type == "image/png");
  CHECK(input->images[0].data == png);
  auto refused = [](json block, std::string_view said) {
    const auto result = prompt_input(json::array({{{"type", "text"}, {"text", "x"}}, block}));
    REQUIRE_FALSE(result);
    INFO(result.error().message);
    CHECK(result.error().message.find(said) != std::string::npos);
  };
  refused({{"type", "image"}, {"mimeType", "image/jpeg"}, {"data", png}}, "bytes of the mimeType");
  refused({{"type", "image"}, {"mimeType", "image/svg+xml"}, {"data", "PHN2Zz4="}}, "png, jpeg");
  refused({{"type", "image"}, {"mimeType", "image/png"}, {"data", "not base64!"}}, "base64");
  refused(
      {{"type", "image"}, {"mimeType", "image/png"}, {"data", std::string(8 * 1024 * 1024, 'A')}},
      "5 MiB");
}

TEST_CASE("an editor's MCP servers become an mcpServers object", "[acp]") {
  const auto document = ava::acp::mcp_servers_document(json::parse(R"([
    {"name": "fs", "command": "node", "args": ["fs.js", "/w"], "env": [{"name": "TOKEN", "value": "t"}]},
    {"name": "web", "type": "http", "url": "https://mcp.example/mcp", "headers": [{"name": "X-Key", "value": "k"}]}
  ])"));
  REQUIRE(document);
  CHECK(*document == json::parse(R"({
    "fs": {"command": "node", "args": ["fs.js", "/w"], "env": {"TOKEN": "t"}},
    "web": {"type": "http", "url": "https://mcp.example/mcp", "headers": {"X-Key": "k"}}
  })"));
  CHECK(ava::acp::mcp_servers_document(json()).value() == json::object());
  auto refused = [](const char* text, std::string_view said) {
    const auto result = ava::acp::mcp_servers_document(json::parse(text));
    REQUIRE_FALSE(result);
    INFO(result.error().message);
    CHECK(result.error().message.find(said) != std::string::npos);
  };
  refused(R"({"name": "x"})", "must be an array");
  refused(R"([{"command": "x"}])", "name must be a string");
  refused(R"([{"name": "x", "command": "a", "args": [1]}])", "array of strings");
  refused(R"([{"name": "x", "command": "a", "env": [{"name": "A"}]}])", "value must be a string");
  refused(R"([{"name": "x", "type": "sse", "url": "u"}])", "not supported");
  refused(R"([{"name": "x", "type": "http"}])", "url must be a string");
  refused(R"([{"name": "x", "command": "a"}, {"name": "x", "command": "b"}])", "given twice");
}
