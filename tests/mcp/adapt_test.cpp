#include <catch2/catch.hpp>

#include <string>

#include "ava/mcp/adapt.hpp"

using ava::mcp::adapt_call_result;
using ava::tool::ImageContent;
using ava::tool::TextContent;
using nlohmann::json;

namespace {

const std::string tiny_png =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+"
    "M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

std::string text_of(const ava::tool::ToolResult& result, std::size_t index) {
  REQUIRE(index < result.content.size());
  const auto* text = std::get_if<TextContent>(&result.content[index]);
  REQUIRE(text != nullptr);
  return text->text;
}

}  // namespace

TEST_CASE("mcp text and image content keep their order", "[tool][mcp][adapt]") {
  auto result =
      adapt_call_result(json{{"content",
                              {{{"type", "text"}, {"text", "before"}},
                               {{"type", "image"}, {"mimeType", "image/png"}, {"data", tiny_png}},
                               {{"type", "text"}, {"text", "after"}}}}});
  CHECK_FALSE(result.is_error);
  REQUIRE(result.content.size() == 3);
  CHECK(text_of(result, 0) == "before");
  const auto* image = std::get_if<ImageContent>(&result.content[1]);
  REQUIRE(image != nullptr);
  CHECK(image->media_type == "image/png");
  CHECK(image->data == tiny_png);
  CHECK(text_of(result, 2) == "after");
}

TEST_CASE("mcp images the model cannot take and audio become lines", "[tool][mcp][adapt]") {
  ava::base::Limits limits;
  limits.image_bytes = 10;
  auto result = adapt_call_result(
      json{{"content",
            {{{"type", "image"}, {"mimeType", "image/svg+xml"}, {"data", "PHN2Zz48L3N2Zz4="}},
             {{"type", "image"}, {"mimeType", "image/png"}, {"data", tiny_png}},
             {{"type", "audio"}, {"mimeType", "audio/wav"}, {"data", "UklGRiQAAABXQVZF"}}}}},
      limits);
  REQUIRE(result.content.size() == 3);
  CHECK(text_of(result, 0) == "[image image/svg+xml, 11 bytes: not a type the model can see]");
  CHECK(text_of(result, 1) == "[image image/png, 70 bytes: larger than the 10 bytes limit]");
  CHECK(text_of(result, 2) == "[audio audio/wav, 12 bytes: not shown to the model]");
}

TEST_CASE("mcp resource links and embedded resources are described", "[tool][mcp][adapt]") {
  auto result = adapt_call_result(json{
      {"content",
       {{{"type", "resource_link"},
         {"uri", "demo://resource/1"},
         {"name", "one"},
         {"mimeType", "text/plain"},
         {"description", "the first"}},
        {{"type", "resource"},
         {"resource", {{"uri", "demo://text"}, {"mimeType", "text/plain"}, {"text", "hello"}}}},
        {{"type", "resource"},
         {"resource", {{"uri", "demo://pic"}, {"mimeType", "image/png"}, {"blob", tiny_png}}}},
        {{"type", "resource"},
         {"resource",
          {{"uri", "demo://bin"}, {"mimeType", "application/gzip"}, {"blob", "H4sIAAAA"}}}},
        {{"type", "hologram"}}}}});
  REQUIRE(result.content.size() == 5);
  CHECK(text_of(result, 0) == "[resource link: one <demo://resource/1> (text/plain): the first]");
  CHECK(text_of(result, 1) == "[resource demo://text (text/plain)]\nhello");
  CHECK(std::holds_alternative<ImageContent>(result.content[2]));
  CHECK(text_of(result, 3) ==
        "[resource demo://bin application/gzip, 6 bytes: binary data not shown]");
  CHECK(text_of(result, 4) == "[MCP content of type hologram is not supported]");
}

TEST_CASE("mcp structured content is shown when no text says it", "[tool][mcp][adapt]") {
  auto only = adapt_call_result(
      json{{"content", json::array()}, {"structuredContent", {{"temperature", 21}}}});
  CHECK(only.joined_text() == R"({"temperature":21})");
  CHECK(only.details["structuredContent"]["temperature"] == 21);

  auto both =
      adapt_call_result(json{{"content", {{{"type", "text"}, {"text", R"({"temperature":21})"}}}},
                             {"structuredContent", {{"temperature", 21}}}});
  CHECK(both.content.size() == 1);
}

TEST_CASE("mcp isError results are tool errors the model reads", "[tool][mcp][adapt]") {
  auto result = adapt_call_result(
      json{{"content", {{{"type", "text"}, {"text", "no such city"}}}}, {"isError", true}});
  CHECK(result.is_error);
  CHECK(result.joined_text() == "no such city");
  CHECK(adapt_call_result(json::object()).joined_text() == "(no content)");
}

TEST_CASE("mcp text over the output limit keeps head and tail", "[tool][mcp][adapt]") {
  ava::base::Limits limits;
  limits.tool_output = 1000;
  auto result = adapt_call_result(
      json{{"content",
            {{{"type", "text"}, {"text", std::string(600, 'a') + std::string(600, 'b')}},
             {{"type", "text"}, {"text", std::string(500, 'c')}}}}},
      limits);
  const auto first = text_of(result, 0);
  CHECK(first.starts_with("aaaa"));
  CHECK(first.ends_with("bbbb"));
  CHECK(first.find("bytes omitted") != std::string::npos);
  CHECK(text_of(result, 1) == "[500 bytes omitted]");
  CHECK(result.details["truncated"] == true);
  CHECK(result.joined_text().find("[MCP output truncated to the 1000 bytes limit]") !=
        std::string::npos);
}
