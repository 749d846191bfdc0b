#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "mcp/mcp_test_util.hpp"
#include "support/run_coroutine.hpp"
#include "support/temp_dir.hpp"
#include "tool/tool_test_util.hpp"

namespace asio = boost::asio;
using ava::mcp::Session;
using ava::mcp::StdioServer;
using ava::test::run_coroutine;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using SessionPtr = std::shared_ptr<Session>;

// Named values for the co_await expressions below: g++ 12 mishandles
// temporaries there (see TOOLCHAIN.md).
const std::string tools_call = "tools/call";
const std::string ping = "ping";
const json no_params;
const ava::mcp::RequestOptions defaults;
const ava::mcp::SessionOptions no_options;

asio::awaitable<SessionPtr> connect(asio::io_context& io, StdioServer server,
                                    ava::mcp::SessionOptions options) {
  auto transport = ava::mcp::make_stdio_transport(std::move(server));
  auto session =
      co_await Session::connect(io.get_executor(), std::move(transport), std::move(options));
  if (!session) FAIL(session.error().describe());
  co_return *session;
}

json echo_call(const std::string& text) {
  return {{"name", "echo"}, {"arguments", {{"message", text}}}};
}

json long_operation(int seconds, int steps) {
  return {{"name", "trigger-long-running-operation"},
          {"arguments", {{"duration", seconds}, {"steps", steps}}}};
}

}  // namespace

TEST_CASE("mcp session initializes with the newest protocol version and calls echo",
          "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto everything = ava::test::everything_stdio();
    auto session = co_await connect(io, everything, no_options);
    CHECK(session->server().protocol_version == "2025-11-25");
    CHECK(session->server().name == "mcp-servers/everything");
    CHECK(session->server().has("tools"));
    CHECK_FALSE(session->server().instructions.empty());
    const auto hello = echo_call("hello");
    auto result = co_await session->request(tools_call, hello, defaults);
    REQUIRE(result.has_value());
    CHECK((*result)["content"][0]["text"] == "Echo: hello");
    auto pong = co_await session->request(ping, no_params, defaults);
    REQUIRE(pong.has_value());
    CHECK(*pong == json::object());
    co_await session->close();
    CHECK_FALSE(session->alive());
    co_return true;
  });
}

TEST_CASE("mcp session passes progress notifications to the waiting request",
          "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto everything = ava::test::everything_stdio();
    auto session = co_await connect(io, everything, no_options);
    std::vector<double> seen;
    ava::mcp::RequestOptions options{.on_progress = [&](const ava::mcp::Progress& progress) {
      seen.push_back(progress.progress);
      CHECK(progress.total == 3.0);
    }};
    const auto operation = long_operation(1, 3);
    auto result = co_await session->request(tools_call, operation, options);
    REQUIRE(result.has_value());
    CHECK(seen == std::vector<double>{1, 2, 3});
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp session cancels a request whose coroutine is cancelled and goes on",
          "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    co_await asio::this_coro::throw_if_cancelled(false);
    const auto everything = ava::test::everything_stdio();
    auto session = co_await connect(io, everything, no_options);
    asio::cancellation_signal signal;
    asio::steady_timer timer(io, 500ms);
    timer.async_wait([&](auto) { signal.emit(asio::cancellation_type::terminal); });
    const auto started = std::chrono::steady_clock::now();
    const auto operation = long_operation(20, 20);
    const ava::mcp::RequestOptions with_progress{.on_progress = [](const auto&) {}};
    auto call = session->request(tools_call, operation, with_progress);
    auto result = co_await asio::co_spawn(
        io, std::move(call), asio::bind_cancellation_slot(signal.slot(), asio::use_awaitable));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == ava::ErrorCode::cancelled);
    CHECK(std::chrono::steady_clock::now() - started < 5s);
    // Late progress for the cancelled request is dropped; the session works on.
    const auto after = echo_call("after");
    auto echoed = co_await session->request(tools_call, after, defaults);
    REQUIRE(echoed.has_value());
    CHECK((*echoed)["content"][0]["text"] == "Echo: after");
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp session times out a slow request and stays usable", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto everything = ava::test::everything_stdio();
    auto session = co_await connect(io, everything, no_options);
    const ava::mcp::RequestOptions short_timeout{.timeout = 300ms};
    const auto operation = long_operation(10, 10);
    auto result = co_await session->request(tools_call, operation, short_timeout);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == ava::ErrorCode::timeout);
    const auto still_here = echo_call("still here");
    auto echoed = co_await session->request(tools_call, still_here, defaults);
    REQUIRE(echoed.has_value());
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp session reports a JSON-RPC error answer as a protocol error", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto everything = ava::test::everything_stdio();
    auto session = co_await connect(io, everything, no_options);
    const std::string unknown = "no/such/method";
    auto result = co_await session->request(unknown, no_params, defaults);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == ava::ErrorCode::protocol);
    CHECK(result.error().message.find("-32601") != std::string::npos);
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp session answers the server's ping and refuses what it does not offer",
          "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto test_server = ava::test::test_server_stdio();
    auto session = co_await connect(io, test_server, no_options);
    const json ask = {{"name", "ask-client"}, {"arguments", json::object()}};
    auto result = co_await session->request(tools_call, ask, defaults);
    REQUIRE(result.has_value());
    CHECK((*result)["content"][0]["text"] == "ping: ok; roots/list: error -32601");
    co_await session->close();
    co_return true;
  });
}

// The owner's capabilities and handler (what the conformance client uses
// for elicitation): roots advertised and answered.
ava::mcp::SessionOptions with_roots() {
  ava::mcp::SessionOptions options;
  options.capabilities = json{{"roots", json::object()}};
  options.on_request = [](const std::string& method, const json&) -> std::optional<json> {
    if (method != "roots/list") return std::nullopt;
    return json{{"roots", json::array()}};
  };
  return options;
}

TEST_CASE("mcp session answers server requests its owner handles", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto test_server = ava::test::test_server_stdio();
    const auto options = with_roots();
    auto session = co_await connect(io, test_server, options);
    const json ask = {{"name", "ask-client"}, {"arguments", json::object()}};
    auto result = co_await session->request(tools_call, ask, defaults);
    REQUIRE(result.has_value());
    CHECK((*result)["content"][0]["text"] == "ping: ok; roots/list: answered");
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp session delivers list_changed notifications", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    int changes = 0;
    ava::mcp::SessionOptions options{
        .on_notification = [&](const std::string& method, const json&) {
          if (method == "notifications/tools/list_changed") ++changes;
        }};
    const auto everything = ava::test::everything_stdio();
    auto session = co_await connect(io, everything, options);
    // server-everything announces its conditional tools right after initialized.
    asio::steady_timer wait(io);
    for (int i = 0; i < 50 && changes == 0; ++i) {
      wait.expires_after(100ms);
      co_await wait.async_wait(asio::use_awaitable);
    }
    CHECK(changes > 0);
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp server that dies mid-request fails the request with its exit status",
          "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto test_server = ava::test::test_server_stdio();
    auto session = co_await connect(io, test_server, no_options);
    const json exit_now = {{"name", "exit-now"}, {"arguments", json::object()}};
    auto result = co_await session->request(tools_call, exit_now, defaults);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == ava::ErrorCode::unavailable);
    CHECK(result.error().message.find("exit code 3") != std::string::npos);
    CHECK_FALSE(session->alive());
    auto after = co_await session->request(ping, no_params, defaults);
    CHECK_FALSE(after.has_value());
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp server that fails to start is an error quoting its stderr", "[tool][mcp][stdio]") {
  AVA_REQUIRE_MCP_SERVERS();
  ava::test::TempDir dir;
  const auto log = dir.path() / "server.log";
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    auto server = ava::test::test_server_stdio();
    server.env["AVA_TEST_FAIL_START"] = "1";
    server.stderr_log = log;
    auto transport = ava::mcp::make_stdio_transport(std::move(server));
    auto session = co_await Session::connect(io.get_executor(), std::move(transport), no_options);
    REQUIRE_FALSE(session.has_value());
    CHECK(session.error().code == ava::ErrorCode::unavailable);
    CHECK(session.error().message.find("refusing to start as asked") != std::string::npos);
    co_return true;
  });
  CHECK(ava::test::read_bytes(log).find("refusing to start") != std::string::npos);
}

TEST_CASE("mcp server command that does not exist is an error", "[tool][mcp][stdio]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    StdioServer missing{.command = "/nonexistent/ava-mcp-server"};
    auto transport = ava::mcp::make_stdio_transport(std::move(missing));
    auto session = co_await Session::connect(io.get_executor(), std::move(transport), no_options);
    REQUIRE_FALSE(session.has_value());
    CHECK(session.error().code == ava::ErrorCode::unavailable);
    co_return true;
  });
}
