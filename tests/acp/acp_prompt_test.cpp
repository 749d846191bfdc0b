// A session/prompt's content blocks as the agent's input text.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ava/acp/prompt.hpp"

using ava::acp::prompt_text;
using nlohmann::json;

TEST_CASE("text, links and embedded files become one input", "[acp]") {
  const json blocks = json::parse(R"([
    {"type": "text", "text": "Explain"},
    {"type": "resource_link", "uri": "file:///work/my%20app/main.cpp", "name": "main.cpp"},
    {"type": "resource", "resource": {"uri": "file:///work/a.h", "text": "int a;"}}
  ])");
  const auto text = prompt_text(blocks);
  REQUIRE(text);
  CHECK(*text ==
        "Explain\n@/work/my app/main.cpp\n<context file=\"/work/a.h\">\nint a;\n</context>");
}

TEST_CASE("prompts Ava does not take are refused with the reason", "[acp]") {
  auto refused = [](const char* text, std::string_view said) {
    const auto result = prompt_text(json::parse(text));
    REQUIRE_FALSE(result);
    INFO(result.error().message);
    CHECK(result.error().message.find(said) != std::string::npos);
  };
  refused(R"({"type": "text"})", "array");
  refused(R"([{"type": "image", "data": "", "mimeType": "image/png"}])",
          "\"image\" is not supported");
  refused(R"([{"type": "resource", "resource": {"uri": "x", "blob": "AA=="}}])", "text resources");
  refused(R"([{"type": "text", "text": "  \n"}])", "no text");
  refused(R"([])", "no text");
  refused(R"([42])", "not supported");
  // A NUL or a broken escape in a file URI keeps the URI as given.
  CHECK(
      prompt_text(json::parse(R"([{"type": "resource_link", "uri": "file:///a%00b"}])")).value() ==
      "@file:///a%00b");
  CHECK(prompt_text(json::parse(R"([{"type": "resource_link", "uri": "file:///a%4"}])")).value() ==
        "@file:///a%4");
}
