#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "ava/transport/http_client.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"
#include "support/test_pki.hpp"

namespace asio = boost::asio;
using ava::test::FakeProviderServer;
using ava::test::FakeReply;
using ava::test::run_coroutine;
using ava::transport::HttpClient;
using ava::transport::HttpClientOptions;
using ava::transport::HttpRequest;
using ava::transport::HttpResponse;

namespace {

struct Outcome {
  ava::Result<HttpResponse> response;
  std::string streamed;
};

// One request with a fresh client; the body streams into Outcome::streamed.
Outcome fetch(const std::string& url, HttpClientOptions options = {}, std::string body = "{}") {
  return run_coroutine([&](asio::io_context& io) -> asio::awaitable<Outcome> {
    auto client = HttpClient::create(io.get_executor(), options);
    REQUIRE(client.has_value());
    Outcome outcome{.response = ava::fail(ava::ErrorCode::internal, "unset")};
    HttpRequest request{
        .method = "POST", .url = url, .headers = {{"x-test", "1"}}, .body = std::move(body)};
    ava::transport::BodyHandler on_body = [&](std::string_view chunk) -> ava::Result<void> {
      outcome.streamed.append(chunk);
      return {};
    };
    outcome.response = co_await (*client)->send(request, on_body);
    co_return outcome;
  });
}

}  // namespace

TEST_CASE("http client streams a chunked 2xx body to the handler and records the request",
          "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(FakeReply{.chunks = {"data: one\n\n", "data: two\n\n"}});
  auto outcome = fetch(server->base_url() + "/v1/messages", {}, R"({"stream":true})");
  REQUIRE(outcome.response.has_value());
  CHECK(outcome.response->status == 200);
  CHECK(outcome.response->header("Content-Type") == "text/event-stream");
  CHECK(outcome.response->body.empty());
  CHECK(outcome.streamed == "data: one\n\ndata: two\n\n");
  auto requests = server->requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].target == "/v1/messages");
  CHECK(requests[0].header("x-test") == "1");
  CHECK(requests[0].header("host") == fmt::format("127.0.0.1:{}", server->port()));
  CHECK(requests[0].body == R"({"stream":true})");
}

TEST_CASE("http client keeps the connection alive between requests", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(FakeReply{.chunks = {"a"}});
  server->enqueue(FakeReply{.chunks = {"b"}});
  auto bodies = run_coroutine([&](asio::io_context& io) -> asio::awaitable<std::string> {
    auto client = std::move(HttpClient::create(io.get_executor()).value());
    std::string seen;
    ava::transport::BodyHandler on_body = [&](std::string_view chunk) -> ava::Result<void> {
      seen.append(chunk);
      return {};
    };
    HttpRequest request{.url = server->base_url() + "/x"};
    auto first = co_await client->send(request, on_body);
    auto second = co_await client->send(request, on_body);
    REQUIRE(first.has_value());
    REQUIRE(second.has_value());
    co_return seen;
  });
  CHECK(bodies == "ab");
  CHECK(server->connections_accepted() == 1);
}

TEST_CASE("http client returns a non-2xx body with its headers instead of streaming it", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(ava::test::http_error_reply(429, 7));
  auto outcome = fetch(server->base_url() + "/v1/messages");
  REQUIRE(outcome.response.has_value());
  CHECK(outcome.response->status == 429);
  CHECK(outcome.response->header("retry-after") == "7");
  CHECK(outcome.response->body.find("rate_limit_error") != std::string::npos);
  CHECK(outcome.streamed.empty());
}

TEST_CASE("http client times out waiting for a slow first byte", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(
      FakeReply{.chunks = {"late"}, .first_byte_delay = std::chrono::milliseconds(2000)});
  HttpClientOptions options;
  options.timeouts.first_byte = std::chrono::milliseconds(100);
  auto started = std::chrono::steady_clock::now();
  auto outcome = fetch(server->base_url() + "/", options);
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::timeout);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(1500));
}

TEST_CASE("http client times out when a stream goes idle", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(FakeReply{.chunks = {"data: a\n\n", "data: b\n\n"},
                            .chunk_delay = std::chrono::milliseconds(2000)});
  HttpClientOptions options;
  options.timeouts.idle = std::chrono::milliseconds(100);
  auto outcome = fetch(server->base_url() + "/", options);
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::timeout);
  CHECK(outcome.streamed == "data: a\n\n");
}

TEST_CASE("http client reports a stream cut mid-event as an io error", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(
      FakeReply{.chunks = {"data: {\"a\":1}\n\n", "data: {\"b\":"}, .cut_after_bytes = 20});
  auto outcome = fetch(server->base_url() + "/");
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::io);
  CHECK(outcome.streamed == "data: {\"a\":1}\n\ndata:");  // 20 bytes, then the cut
}

TEST_CASE("http client refuses a non-2xx body above the limit", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(FakeReply{.status = 500, .chunks = {std::string(5000, 'x')}});
  HttpClientOptions options;
  options.max_body_bytes = 1000;
  auto outcome = fetch(server->base_url() + "/", options);
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::limit_exceeded);
}

TEST_CASE("http client reports a refused connection as unavailable", "[http]") {
  std::string url;
  {
    auto server = FakeProviderServer::start();
    url = server->base_url() + "/";
  }
  auto outcome = fetch(url);
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::unavailable);
}

TEST_CASE("http client body handler errors stop the transfer", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(
      FakeReply{.chunks = {"one", "two"}, .chunk_delay = std::chrono::milliseconds(20)});
  auto result =
      run_coroutine([&](asio::io_context& io) -> asio::awaitable<ava::Result<HttpResponse>> {
        auto client = std::move(HttpClient::create(io.get_executor()).value());
        HttpRequest request{.url = server->base_url() + "/"};
        ava::transport::BodyHandler on_body = [](std::string_view) -> ava::Result<void> {
          return ava::fail(ava::ErrorCode::limit_exceeded, "too much");
        };
        co_return co_await client->send(request, on_body);
      });
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().message == "too much");
}

TEST_CASE("http client shows the response head before the first body byte", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(FakeReply{.chunks = {"data: one\n\n", "data: two\n\n"}});
  std::vector<std::string> seen;
  auto result =
      run_coroutine([&](asio::io_context& io) -> asio::awaitable<ava::Result<HttpResponse>> {
        auto client = std::move(HttpClient::create(io.get_executor()).value());
        HttpRequest request{.url = server->base_url() + "/"};
        ava::transport::HeadHandler on_head = [&](const HttpResponse& head) -> ava::Result<void> {
          seen.push_back(fmt::format("head {} {}", head.status, head.header("content-type")));
          return {};
        };
        ava::transport::BodyHandler on_body = [&](std::string_view chunk) -> ava::Result<void> {
          seen.push_back(fmt::format("body {}", chunk.size()));
          return {};
        };
        co_return co_await client->send(request, on_head, on_body);
      });
  REQUIRE(result.has_value());
  REQUIRE(seen.size() >= 2);
  CHECK(seen.front() == "head 200 text/event-stream");
  CHECK(seen[1].starts_with("body "));
}

TEST_CASE("http client head handler errors stop the transfer before the body", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(FakeReply{.chunks = {"one"}});
  bool body_seen = false;
  auto result =
      run_coroutine([&](asio::io_context& io) -> asio::awaitable<ava::Result<HttpResponse>> {
        auto client = std::move(HttpClient::create(io.get_executor()).value());
        HttpRequest request{.url = server->base_url() + "/"};
        ava::transport::HeadHandler on_head = [](const HttpResponse&) -> ava::Result<void> {
          return ava::fail(ava::ErrorCode::protocol, "unexpected content type");
        };
        ava::transport::BodyHandler on_body = [&](std::string_view) -> ava::Result<void> {
          body_seen = true;
          return {};
        };
        co_return co_await client->send(request, on_head, on_body);
      });
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().message == "unexpected content type");
  CHECK_FALSE(body_seen);
}

TEST_CASE("http client request is cancelled from another coroutine", "[http]") {
  auto server = FakeProviderServer::start();
  server->enqueue(
      FakeReply{.chunks = {"late"}, .first_byte_delay = std::chrono::milliseconds(5000)});
  asio::io_context io;
  auto client = std::move(HttpClient::create(io.get_executor()).value());
  asio::cancellation_signal cancel;
  std::optional<ava::Result<HttpResponse>> result;
  HttpRequest request{.url = server->base_url() + "/"};
  ava::transport::BodyHandler on_body = [](std::string_view) -> ava::Result<void> { return {}; };
  asio::co_spawn(
      io, [&]() -> asio::awaitable<void> { result = co_await client->send(request, on_body); },
      asio::bind_cancellation_slot(cancel.slot(), asio::detached));
  asio::steady_timer timer(io, std::chrono::milliseconds(100));
  timer.async_wait(
      [&](boost::system::error_code) { cancel.emit(asio::cancellation_type::terminal); });
  auto started = std::chrono::steady_clock::now();
  io.run_for(std::chrono::seconds(10));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(3));
  REQUIRE(result.has_value());
  REQUIRE_FALSE(result->has_value());
  CHECK(result->error().code == ava::ErrorCode::cancelled);
}

using ava::test::TestPki;

TEST_CASE("https to a server whose CA comes from SSL_CERT_FILE succeeds", "[http][tls]") {
  TestPki pki;
  auto server = FakeProviderServer::start(
      {.tls = true, .certificate_chain = pki.cert(), .private_key = pki.key()});
  server->enqueue(FakeReply{.chunks = {"data: secure\n\n"}});
  ::setenv("SSL_CERT_FILE", pki.ca().c_str(), 1);
  auto outcome = fetch(server->base_url() + "/v1/messages");
  ::unsetenv("SSL_CERT_FILE");
  REQUIRE(outcome.response.has_value());
  CHECK(outcome.response->status == 200);
  CHECK(outcome.streamed == "data: secure\n\n");
}

TEST_CASE("https refuses a certificate for another host name", "[http][tls]") {
  TestPki pki;
  auto server = FakeProviderServer::start(
      {.tls = true, .certificate_chain = pki.cert(), .private_key = pki.key()});
  server->enqueue(FakeReply{.chunks = {"data: never\n\n"}});
  HttpClientOptions options;
  options.ca_file = pki.ca();
  // The certificate names localhost; 127.0.0.1 is the same server under another name.
  auto outcome = fetch(fmt::format("https://127.0.0.1:{}/", server->port()), options);
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::protocol);
  CHECK(outcome.response.error().message.find("TLS") != std::string::npos);
  CHECK(outcome.streamed.empty());
}

TEST_CASE("https refuses a server whose CA is not trusted", "[http][tls]") {
  TestPki pki;
  auto server = FakeProviderServer::start(
      {.tls = true, .certificate_chain = pki.cert(), .private_key = pki.key()});
  auto outcome = fetch(server->base_url() + "/");
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::protocol);
}

TEST_CASE("https: a stream cut or stalled mid-body is an error, never a hang", "[http][tls]") {
  TestPki pki;
  ::setenv("SSL_CERT_FILE", pki.ca().c_str(), 1);
  {
    // The TCP connection dropped without TLS's close_notify, mid-stream.
    auto server = FakeProviderServer::start(
        {.tls = true, .certificate_chain = pki.cert(), .private_key = pki.key()});
    server->enqueue(FakeReply{.chunks = {"data: one\n\n", "data: two\n\n"}, .cut_after_bytes = 15});
    auto outcome = fetch(server->base_url() + "/v1/messages");
    REQUIRE_FALSE(outcome.response.has_value());
    CHECK(outcome.streamed == "data: one\n\ndata");
  }
  {
    auto server = FakeProviderServer::start(
        {.tls = true, .certificate_chain = pki.cert(), .private_key = pki.key()});
    server->enqueue(
        FakeReply{.chunks = {"data: one\n\n", "data: two\n\n"}, .stall_after_chunks = 1});
    HttpClientOptions options;
    options.timeouts.idle = std::chrono::milliseconds(300);
    auto outcome = fetch(server->base_url() + "/v1/messages", options);
    REQUIRE_FALSE(outcome.response.has_value());
    CHECK(outcome.response.error().code == ava::ErrorCode::timeout);
    CHECK(outcome.streamed == "data: one\n\n");
  }
  ::unsetenv("SSL_CERT_FILE");
}

TEST_CASE("the total limit ends a body that never goes idle", "[http]") {
  auto server = FakeProviderServer::start();
  FakeReply drip;
  for (int i = 0; i < 40; ++i) drip.chunks.push_back("data: x\n\n");
  drip.chunk_delay = std::chrono::milliseconds(25);
  server->enqueue(drip);
  server->enqueue(drip);
  HttpClientOptions options;
  options.timeouts.idle = std::chrono::milliseconds(500);
  options.timeouts.total = std::chrono::milliseconds(300);
  auto cut = fetch(server->base_url() + "/v1/messages", options);
  REQUIRE_FALSE(cut.response.has_value());
  CHECK(cut.response.error().code == ava::ErrorCode::timeout);
  INFO(cut.response.error().message);
  CHECK(cut.response.error().message.find("not complete after") != std::string::npos);
  // Without a total, the same drip completes.
  options.timeouts.total = std::chrono::milliseconds(0);
  auto whole = fetch(server->base_url() + "/v1/messages", options);
  REQUIRE(whole.response.has_value());
  CHECK(whole.streamed.size() == 40 * std::string("data: x\n\n").size());
}
