// Servers that answer with what a broken or hostile peer sends: deeply
// nested JSON, fields of the wrong type, an object as id, a number as
// result. The client reports an error for the request concerned and keeps
// working; nothing throws out of a reader, nothing overflows the stack.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ava/mcp/adapt.hpp"
#include "ava/mcp/client.hpp"
#include "ava/mcp/http_transport.hpp"
#include "ava/mcp/stdio_transport.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
using ava::test::run_coroutine;
using namespace ava::mcp;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// Named values for the co_await expressions below (g++ 12, TOOLCHAIN.md).
const SessionOptions no_options;
const RequestOptions defaults;
const RequestOptions short_wait{.timeout = 2000ms};
const std::string echo = "echo";

StdioServer hostile_stdio() {
  const auto script = std::filesystem::path(AVA_SOURCE_DIR) / "tests" / "mcp" / "hostile_server.py";
  return StdioServer{.command = "python3", .args = {script.string()}};
}

asio::awaitable<std::shared_ptr<Session>> open(asio::io_context& io, StdioServer server) {
  auto session = co_await Session::connect(io.get_executor(),
                                           make_stdio_transport(std::move(server)), no_options);
  if (!session) FAIL(session.error().describe());
  co_return *session;
}

asio::awaitable<std::string> echoed(Session& session, const std::string& text) {
  const json arguments{{"text", text}};
  auto answer = co_await call_tool(session, echo, arguments, defaults);
  if (!answer) co_return "error: " + answer.error().message;
  co_return adapt_call_result(*answer).joined_text();
}

}  // namespace

TEST_CASE("mcp stdio: wrong-typed fields in initialize are ignored, not thrown",
          "[tool][mcp][hostile]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto server = hostile_stdio();
    auto session = co_await open(io, server);
    CHECK(session->server().protocol_version == "2025-11-25");
    CHECK(session->server().name.empty());
    CHECK(session->server().instructions.empty());
    const std::string first = "first";
    const auto first_echo = co_await echoed(*session, first);
    CHECK(first_echo == first);
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp stdio: a result nested 300000 levels deep fails its request, the session goes on",
          "[tool][mcp][hostile]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto server = hostile_stdio();
    auto session = co_await open(io, server);
    const std::string deep = "deep";
    const json none = json::object();
    auto answer = co_await call_tool(*session, deep, none, short_wait);
    REQUIRE_FALSE(answer.has_value());
    CHECK(answer.error().code == ava::ErrorCode::timeout);
    CHECK(session->alive());
    const std::string still = "still here";
    const auto still_echo = co_await echoed(*session, still);
    CHECK(still_echo == still);
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp stdio: an object id and a number result are errors, the session goes on",
          "[tool][mcp][hostile]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    const auto server = hostile_stdio();
    auto session = co_await open(io, server);
    const json none = json::object();
    const std::string wrong_id = "wrong-id";
    auto answer = co_await call_tool(*session, wrong_id, none, defaults);
    REQUIRE_FALSE(answer.has_value());
    CHECK(answer.error().code == ava::ErrorCode::protocol);
    CHECK_THAT(answer.error().message, Catch::Contains("not an object"));

    const std::string bad_error = "bad-error";
    auto refused = co_await call_tool(*session, bad_error, none, defaults);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == ava::ErrorCode::protocol);

    const std::string bad_notes = "bad-notes";
    int progress_seen = 0;
    const RequestOptions with_progress{.on_progress = [&](const Progress& progress) {
      ++progress_seen;
      CHECK(progress.progress == 0);
      CHECK_FALSE(progress.total.has_value());
      CHECK(progress.message.empty());
    }};
    auto noted = co_await call_tool(*session, bad_notes, none, with_progress);
    REQUIRE(noted.has_value());
    CHECK(adapt_call_result(*noted).joined_text() == "after the notes");
    CHECK(progress_seen == 1);
    const std::string still = "still here";
    const auto still_echo = co_await echoed(*session, still);
    CHECK(still_echo == still);
    co_await session->close();
    co_return true;
  });
}

TEST_CASE("mcp stdio: the server gets its configured env but not the user's credentials",
          "[tool][mcp][env]") {
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-user-key-0123456789", 1);
  ::setenv("AVA_HOSTILE_PLAIN", "plain", 1);
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto server = hostile_stdio();
    server.env = {{"SERVER_API_KEY", "configured-key"}};
    auto session = co_await open(io, server);
    const std::string env = "env";
    const json names{
        {"names", {"ANTHROPIC_API_KEY", "SERVER_API_KEY", "AVA_HOSTILE_PLAIN", "PATH"}}};
    auto answer = co_await call_tool(*session, env, names, defaults);
    REQUIRE(answer.has_value());
    const auto seen = json::parse(adapt_call_result(*answer).joined_text());
    CHECK(seen["ANTHROPIC_API_KEY"].is_null());
    CHECK(seen["SERVER_API_KEY"] == "configured-key");
    CHECK(seen["AVA_HOSTILE_PLAIN"] == "plain");
    CHECK(seen["PATH"].is_string());
    co_await session->close();
    co_return true;
  });
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("AVA_HOSTILE_PLAIN");
}

namespace {

// Streamable HTTP: initialize with wrong-typed fields, then per tool a
// JSON answer that is nested too deeply, has a number as result, or is fine.
ava::test::FakeReply hostile_http(const ava::test::RecordedRequest& request) {
  using ava::test::FakeReply;
  if (request.method != "POST") return FakeReply{.status = 405};
  const json body = json::parse(request.body);
  const auto method = body.value("method", "");
  if (method == "initialize") {
    json answer{{"jsonrpc", "2.0"},
                {"id", body["id"]},
                {"result",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", 7},
                  {"serverInfo", {{"name", json::array()}, {"version", 3}}}}}};
    return FakeReply{.content_type = "application/json", .chunks = {answer.dump()}};
  }
  if (method != "tools/call") return FakeReply{.status = 202, .content_type = "", .chunks = {}};
  const auto tool = body["params"]["name"].get<std::string>();
  const auto id = body["id"].dump();
  std::string answer;
  if (tool == "deep") {
    answer = R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + std::string(300000, '[') +
             std::string(300000, ']') + "}";
  } else if (tool == "number") {
    answer = R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":5})";
  } else if (tool == "stream-deep") {
    // The same inside an SSE event: skipped, the stream ends without answer.
    return FakeReply{.chunks = {"data: " + std::string(100000, '{') + "\n\n"}};
  } else {
    answer = R"({"jsonrpc":"2.0","id":)" + id +
             R"(,"result":{"content":[{"type":"text","text":"fine"}]}})";
  }
  return FakeReply{.content_type = "application/json", .chunks = {answer}};
}

}  // namespace

TEST_CASE("mcp http: deep or wrong-typed answers are errors and the session goes on",
          "[tool][mcp][http][hostile]") {
  auto server = ava::test::FakeProviderServer::start();
  server->set_fallback(hostile_http);
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    HttpServer config{.url = server->base_url() + "/mcp", .listen = false};
    auto connected =
        co_await Session::connect(io.get_executor(), make_http_transport(config), no_options);
    REQUIRE(connected.has_value());
    auto session = *connected;
    CHECK(session->server().name.empty());
    const json none = json::object();
    for (const std::string tool : {"deep", "number", "stream-deep"}) {
      CAPTURE(tool);
      auto answer = co_await call_tool(*session, tool, none, short_wait);
      REQUIRE_FALSE(answer.has_value());
      CHECK(answer.error().code == ava::ErrorCode::protocol);
    }
    const std::string fine = "fine";
    auto answer = co_await call_tool(*session, fine, none, defaults);
    REQUIRE(answer.has_value());
    CHECK(adapt_call_result(*answer).joined_text() == "fine");
    co_await session->close();
    co_return true;
  });
}
