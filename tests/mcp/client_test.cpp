#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <boost/asio/use_awaitable.hpp>

#include "ava/mcp/adapt.hpp"
#include "ava/mcp/client.hpp"
#include "mcp/mcp_test_util.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
using ava::test::run_coroutine;
using namespace ava::mcp;
using nlohmann::json;

namespace {

template <class Item>
std::vector<std::string> names(const std::vector<Item>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(item.name);
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::ranges::find(list, name) != list.end();
}

// Named values for the co_await expressions below: g++ 12 mishandles
// temporaries there (see TOOLCHAIN.md).
const ListOptions all_pages;
const RequestOptions defaults;
const SessionOptions no_options;
const json no_arguments = json::object();

asio::awaitable<std::shared_ptr<Session>> open(asio::io_context& io, StdioServer server) {
  auto transport = make_stdio_transport(std::move(server));
  auto session = co_await Session::connect(io.get_executor(), std::move(transport), no_options);
  if (!session) FAIL(session.error().describe());
  co_return *session;
}

}  // namespace

TEST_CASE("mcp lists the tools, resources and prompts of server-everything", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto everything = ava::test::everything_stdio();
    auto session = co_await open(io, everything);
    auto tools = co_await list_tools(*session, all_pages);
    REQUIRE(tools.has_value());
    const auto tool_names = names(*tools);
    CHECK(contains(tool_names, "echo"));
    CHECK(contains(tool_names, "trigger-long-running-operation"));
    CHECK(contains(tool_names, "get-tiny-image"));
    const auto echo = std::ranges::find(*tools, std::string("echo"), &ToolInfo::name);
    CHECK(echo->input_schema["properties"].contains("message"));
    CHECK(echo->description == "Echoes back the input string");

    auto resources = co_await list_resources(*session, all_pages);
    REQUIRE(resources.has_value());
    REQUIRE_FALSE(resources->empty());
    CHECK(resources->front().uri.starts_with("demo://resource/"));
    CHECK_FALSE(resources->front().mime_type.empty());

    auto prompts = co_await list_prompts(*session, all_pages);
    REQUIRE(prompts.has_value());
    const auto prompt_names = names(*prompts);
    CHECK(contains(prompt_names, "simple-prompt"));
    const auto args = std::ranges::find(*prompts, std::string("args-prompt"), &PromptInfo::name);
    REQUIRE(args != prompts->end());
    REQUIRE_FALSE(args->arguments.empty());
    CHECK(args->arguments.front().required);
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp lists follow nextCursor through every page", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto test_server = ava::test::test_server_stdio();
    auto session = co_await open(io, test_server);
    auto tools = co_await list_tools(*session, all_pages);
    REQUIRE(tools.has_value());
    CHECK(names(*tools) ==
          std::vector<std::string>{"ask-client", "exit-now", "sleep", "big-text", "fail"});
    auto resources = co_await list_resources(*session, all_pages);
    REQUIRE(resources.has_value());
    CHECK(resources->size() == 3);
    CHECK(resources->back().uri == "test://resource/3");
    auto prompts = co_await list_prompts(*session, all_pages);
    REQUIRE(prompts.has_value());
    CHECK(names(*prompts) == std::vector<std::string>{"prompt-1", "prompt-2", "prompt-3"});
    const ListOptions one = {.max_pages = 1};
    auto one_page = co_await list_tools(*session, one);
    REQUIRE_FALSE(one_page.has_value());
    CHECK(one_page.error().code == ava::ErrorCode::protocol);
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp tool returning an image adapts into text and image blocks", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto everything = ava::test::everything_stdio();
    auto session = co_await open(io, everything);
    const std::string name = "get-tiny-image";
    auto called = co_await call_tool(*session, name, no_arguments, defaults);
    REQUIRE(called.has_value());
    auto result = adapt_call_result(*called);
    CHECK_FALSE(result.is_error);
    REQUIRE(result.content.size() == 3);
    const auto* image = std::get_if<ava::tool::ImageContent>(&result.content[1]);
    REQUIRE(image != nullptr);
    CHECK(image->media_type == "image/png");
    CHECK(image->data.starts_with("iVBORw0KGgo"));
    CHECK(result.joined_text() ==
          "Here's the image you requested:\nThe image above is the MCP logo.");
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp tool errors come back as results with isError", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto test_server = ava::test::test_server_stdio();
    auto session = co_await open(io, test_server);
    const std::string name = "fail";
    auto called = co_await call_tool(*session, name, no_arguments, defaults);
    REQUIRE(called.has_value());
    auto result = adapt_call_result(*called);
    CHECK(result.is_error);
    CHECK(result.joined_text() == "it failed on purpose");
    co_await session->close();
    co_return true;
  });
}
