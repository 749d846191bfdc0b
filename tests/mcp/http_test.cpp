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

#include "ava/mcp/adapt.hpp"
#include "ava/mcp/client.hpp"
#include "ava/mcp/http_transport.hpp"
#include "mcp/http_server_util.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
using ava::test::run_coroutine;
using namespace ava::mcp;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// Named values for the co_await expressions below: g++ 12 mishandles
// temporaries there (see TOOLCHAIN.md).
const ListOptions all_pages;
const RequestOptions defaults;
const SessionOptions no_options;
const json no_arguments = json::object();
const std::string echo = "echo";
const std::string long_running = "trigger-long-running-operation";

asio::awaitable<std::shared_ptr<Session>> open_http(asio::io_context& io, std::string url,
                                                    SessionOptions options, bool listen) {
  HttpServer server{.url = std::move(url), .listen = listen};
  auto session = co_await Session::connect(
      io.get_executor(), make_http_transport(std::move(server)), std::move(options));
  if (!session) FAIL(session.error().describe());
  co_return *session;
}

json long_operation(int seconds, int steps) { return {{"duration", seconds}, {"steps", steps}}; }

}  // namespace

TEST_CASE("mcp over streamable http: echo, progress, image, resources and prompts",
          "[tool][mcp][http]") {
  AVA_REQUIRE_MCP_SERVERS();
  ava::test::EverythingHttp server;
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    const auto url = server.url();
    auto session = co_await open_http(io, url, no_options, true);
    CHECK(session->server().protocol_version == "2025-11-25");
    CHECK(session->server().name == "mcp-servers/everything");

    const json over_http = {{"message", "over http"}};
    auto echoed = co_await call_tool(*session, echo, over_http, defaults);
    REQUIRE(echoed.has_value());
    CHECK(adapt_call_result(*echoed).joined_text() == "Echo: over http");

    std::vector<double> progress;
    const auto operation = long_operation(1, 3);
    const RequestOptions with_progress{
        .on_progress = [&](const Progress& update) { progress.push_back(update.progress); }};
    auto slow = co_await call_tool(*session, long_running, operation, with_progress);
    REQUIRE(slow.has_value());
    CHECK(progress == std::vector<double>{1, 2, 3});

    const std::string tiny_image = "get-tiny-image";
    auto image = co_await call_tool(*session, tiny_image, no_arguments, defaults);
    REQUIRE(image.has_value());
    const auto adapted = adapt_call_result(*image);
    REQUIRE(adapted.content.size() == 3);
    CHECK(std::holds_alternative<ava::tool::ImageContent>(adapted.content[1]));

    auto tools = co_await list_tools(*session, all_pages);
    REQUIRE(tools.has_value());
    CHECK(tools->size() > 5);
    auto resources = co_await list_resources(*session, all_pages);
    REQUIRE(resources.has_value());
    CHECK_FALSE(resources->empty());
    auto prompts = co_await list_prompts(*session, all_pages);
    REQUIRE(prompts.has_value());
    CHECK_FALSE(prompts->empty());
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp over streamable http hears the server on the GET stream", "[tool][mcp][http]") {
  AVA_REQUIRE_MCP_SERVERS();
  ava::test::EverythingHttp server;
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    int changes = 0;
    SessionOptions options{.on_notification = [&](const std::string& method, const json&) {
      if (method == "notifications/tools/list_changed") ++changes;
    }};
    const auto url = server.url();
    auto session = co_await open_http(io, url, options, true);
    asio::steady_timer wait(io);
    for (int i = 0; i < 50 && changes == 0; ++i) {
      wait.expires_after(100ms);
      co_await wait.async_wait(asio::use_awaitable);
    }
    CHECK(changes > 0);
    const std::string ping = "ping";
    const json no_params;
    auto pong = co_await session->request(ping, no_params, defaults);
    CHECK(pong.has_value());
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp over streamable http cancels a call and goes on", "[tool][mcp][http]") {
  AVA_REQUIRE_MCP_SERVERS();
  ava::test::EverythingHttp server;
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    co_await asio::this_coro::throw_if_cancelled(false);
    const auto url = server.url();
    auto session = co_await open_http(io, url, no_options, true);
    asio::cancellation_signal signal;
    asio::steady_timer timer(io, 500ms);
    timer.async_wait([&](auto) { signal.emit(asio::cancellation_type::terminal); });
    const auto operation = long_operation(20, 20);
    const RequestOptions with_progress{.on_progress = [](const Progress&) {}};
    auto call = call_tool(*session, long_running, operation, with_progress);
    auto result = co_await asio::co_spawn(
        io, std::move(call), asio::bind_cancellation_slot(signal.slot(), asio::use_awaitable));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == ava::ErrorCode::cancelled);
    const json after = {{"message", "after"}};
    auto echoed = co_await call_tool(*session, echo, after, defaults);
    CHECK(echoed.has_value());
    co_await session->close();
    co_return true;
  });
}

namespace {

// A scripted Streamable HTTP server: the tools/call stream is cut after its
// first progress event and the answer only comes on a resumed GET.
ava::test::FakeReply scripted(const ava::test::RecordedRequest& request) {
  using ava::test::FakeReply;
  if (request.method == "DELETE") return FakeReply{.status = 200, .content_type = "text/plain"};
  if (request.method == "GET") {
    if (request.header("last-event-id") != "e1") return FakeReply{.status = 405};
    return FakeReply{
        .chunks = {
            "id: e2\nevent: message\ndata: "
            R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"resumed"}]}})"
            "\n\n"}};
  }
  json body = json::parse(request.body);
  const auto method = body.value("method", "");
  if (method == "initialize") {
    json answer{{"jsonrpc", "2.0"},
                {"id", body["id"]},
                {"result",
                 {{"protocolVersion", "2025-06-18"},
                  {"capabilities", {{"tools", json::object()}}},
                  {"serverInfo", {{"name", "scripted"}, {"version", "1"}}}}}};
    return FakeReply{.content_type = "application/json",
                     .headers = {{"mcp-session-id", "s-123"}},
                     .chunks = {answer.dump()}};
  }
  if (method == "tools/call") {
    std::string first = "id: e0\ndata: \n\n";
    std::string second =
        "id: e1\nevent: message\ndata: "
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}})"
        "\n\n";
    return FakeReply{.chunks = {first, second, "id: e9\ndata: {\"partial"},
                     .cut_after_bytes = first.size() + second.size() + 5};
  }
  if (method == "tools/list") {
    return FakeReply{.status = 404, .content_type = "application/json", .chunks = {"{}"}};
  }
  return FakeReply{.status = 202, .content_type = "", .chunks = {}};
}

}  // namespace

TEST_CASE("mcp over streamable http resumes a cut stream with Last-Event-ID", "[tool][mcp][http]") {
  auto server = ava::test::FakeProviderServer::start();
  server->set_fallback(scripted);
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    const auto url = server->base_url() + "/mcp";
    auto session = co_await open_http(io, url, no_options, false);
    CHECK(session->server().protocol_version == "2025-06-18");
    const std::string anything = "anything";
    auto called = co_await call_tool(*session, anything, no_arguments, defaults);
    REQUIRE(called.has_value());
    CHECK(adapt_call_result(*called).joined_text() == "resumed");
    co_await session->close();
    co_return true;
  });
  const auto requests = server->requests();
  REQUIRE(requests.size() == 5);
  CHECK(requests[0].header("accept") == "application/json, text/event-stream");
  CHECK(requests[0].header("mcp-session-id").empty());
  CHECK(requests[1].body.find("notifications/initialized") != std::string::npos);
  CHECK(requests[1].header("mcp-session-id") == "s-123");
  CHECK(requests[1].header("mcp-protocol-version") == "2025-06-18");
  CHECK(requests[3].method == "GET");
  CHECK(requests[3].header("last-event-id") == "e1");
  CHECK(requests[3].header("mcp-session-id") == "s-123");
  CHECK(requests[4].method == "DELETE");
  CHECK(requests[4].header("mcp-session-id") == "s-123");
}

TEST_CASE("mcp over streamable http treats 404 as a lost session", "[tool][mcp][http]") {
  auto server = ava::test::FakeProviderServer::start();
  server->set_fallback(scripted);
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    const auto url = server->base_url() + "/mcp";
    auto session = co_await open_http(io, url, no_options, false);
    auto tools = co_await list_tools(*session, all_pages);
    REQUIRE_FALSE(tools.has_value());
    CHECK(tools.error().code == ava::ErrorCode::unavailable);
    CHECK(tools.error().message.find("expired") != std::string::npos);
    CHECK_FALSE(session->alive());
    co_await session->close();
    co_return true;
  });
}
