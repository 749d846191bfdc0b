#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/mcp/server.hpp"
#include "mcp/mcp_test_util.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
using ava::test::run_coroutine;
using namespace ava::mcp;
using ava::tool::ToolContext;
using ava::tool::ToolRegistry;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<ServerConnection> connection(asio::io_context& io, std::string name,
                                             StdioServer server) {
  return ServerConnection::create(
      io.get_executor(),
      ServerConfig{.name = std::move(name),
                   .make_transport = [server] { return make_stdio_transport(server); },
                   .backoff_initial = 300ms,
                   .backoff_max = 1000ms});
}

// Named values for the co_await expressions below: g++ 12 mishandles
// temporaries there (see TOOLCHAIN.md).
const json no_arguments = json::object();

asio::awaitable<ava::tool::ToolResult> call(ToolRegistry& registry, std::string name,
                                            json arguments) {
  auto* tool = registry.find(name);
  REQUIRE(tool != nullptr);
  ToolContext context{.cwd = "."};
  auto result = co_await ava::tool::invoke(*tool, arguments, context);
  REQUIRE(result.has_value());
  co_return *result;
}

asio::awaitable<void> sleep(asio::io_context& io, std::chrono::milliseconds duration) {
  asio::steady_timer timer(io, duration);
  co_await timer.async_wait(asio::use_awaitable);
}

}  // namespace

TEST_CASE("mcp tool names are prefixed, sanitized and bounded", "[tool][mcp]") {
  CHECK(tool_name("everything", "echo") == "mcp__everything__echo");
  CHECK(tool_name("my server", "get.sum") == "mcp__my_server__get_sum");
  CHECK(tool_name("s", std::string(100, 'x')).size() == 64);
}

TEST_CASE("mcp tools register as ava tools with the server's schema", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto server = connection(io, "everything", ava::test::everything_stdio());
    const std::string echo_name = "mcp__everything__echo";
    ToolRegistry registry;
    auto names = co_await register_server_tools(registry, server);
    REQUIRE(names.has_value());
    auto* echo = registry.find("mcp__everything__echo");
    REQUIRE(echo != nullptr);
    CHECK(echo->spec().category == ava::tool::Category::mcp);
    CHECK(echo->spec().description == "Echoes back the input string");
    CHECK(echo->spec().parameters["required"] == json::array({"message"}));
    CHECK_FALSE(echo->spec().parameters.contains("$schema"));

    const json hi = {{"message", "hi"}};
    auto echoed = co_await call(registry, echo_name, hi);
    CHECK_FALSE(echoed.is_error);
    CHECK(echoed.joined_text() == "Echo: hi");
    CHECK(echoed.details["mcp"]["tool"] == "echo");

    const std::string tiny_image = "mcp__everything__get-tiny-image";
    auto image = co_await call(registry, tiny_image, no_arguments);
    CHECK(image.content.size() == 3);

    // The server's own validation answers bad arguments, readably.
    auto invalid = co_await call(registry, echo_name, no_arguments);
    CHECK(invalid.is_error);
    co_await server->close();
    co_return true;
  });
}

TEST_CASE("mcp server that dies mid-call is a tool error and restarts, then backs off",
          "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto server = connection(io, "test", ava::test::test_server_stdio());
    ToolRegistry registry;
    REQUIRE((co_await register_server_tools(registry, server)).has_value());
    const std::string exit_now = "mcp__test__exit-now";
    const std::string sleep_tool = "mcp__test__sleep";
    auto died = co_await call(registry, exit_now, no_arguments);
    CHECK(died.is_error);
    CHECK(died.joined_text().find("exited (exit code 3)") != std::string::npos);

    const json one_ms = {{"ms", 1}};
    // The next use starts it again at once; it dies again.
    auto died_again = co_await call(registry, exit_now, no_arguments);
    CHECK(died_again.is_error);
    CHECK(died_again.joined_text().find("exited (exit code 3)") != std::string::npos);
    CHECK(server->sessions_started() == 2);

    // Two failures without a call going through: the next start waits.
    auto too_soon = co_await call(registry, sleep_tool, one_ms);
    CHECK(too_soon.is_error);
    CHECK(too_soon.joined_text().find("the next start is in") != std::string::npos);

    const auto backoff = 400ms;
    co_await sleep(io, backoff);
    auto again = co_await call(registry, sleep_tool, one_ms);
    CHECK_FALSE(again.is_error);
    CHECK(again.joined_text() == "slept 1 ms");
    CHECK(server->sessions_started() == 3);
    co_await server->close();
    co_return true;
  });
}

TEST_CASE("mcp server that cannot start gives the model a readable error", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto broken = ava::test::test_server_stdio();
    broken.env["AVA_TEST_FAIL_START"] = "1";
    auto server = connection(io, "broken", broken);
    auto tool = make_mcp_tool(server, ToolInfo{.name = "sleep"});
    ToolContext context{.cwd = "."};
    const json one_ms = {{"ms", 1}};
    auto result = co_await ava::tool::invoke(*tool, one_ms, context);
    REQUIRE(result.has_value());
    CHECK(result->is_error);
    CHECK(result->joined_text().find("MCP server broken is not available") != std::string::npos);
    CHECK(result->joined_text().find("refusing to start as asked") != std::string::npos);
    co_await server->close();
    co_return true;
  });
}

TEST_CASE("mcp tools are listed again after the server says they changed", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto server = connection(io, "everything", ava::test::everything_stdio());
    auto first = co_await server->tools();
    REQUIRE(first.has_value());
    // server-everything announces list_changed right after initialized.
    for (int i = 0; i < 50 && server->tools_generation() == 0; ++i) {
      const auto step = 100ms;
      co_await sleep(io, step);
    }
    CHECK(server->tools_generation() > 0);
    auto again = co_await server->tools();
    REQUIRE(again.has_value());
    CHECK(again->size() >= first->size());
    CHECK(server->sessions_started() == 1);
    co_await server->close();
    co_return true;
  });
}
