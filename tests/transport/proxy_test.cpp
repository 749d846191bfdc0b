// HTTPS_PROXY / HTTP_PROXY / NO_PROXY: the rules, and real requests through
// a loopback CONNECT proxy to the fake provider.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "ava/transport/http_client.hpp"
#include "ava/transport/proxy.hpp"
#include "support/fake_env.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"
#include "support/test_pki.hpp"
#include "transport/connect_proxy.hpp"

namespace asio = boost::asio;
using ava::test::ConnectProxy;
using ava::test::FakeProviderServer;
using ava::test::FakeReply;
using ava::transport::HttpClient;
using ava::transport::HttpClientOptions;
using ava::transport::HttpRequest;
using ava::transport::HttpResponse;
using ava::transport::ProxyConfig;

namespace {

struct Outcome {
  ava::Result<HttpResponse> response = ava::fail(ava::ErrorCode::internal, "unset");
  std::string streamed;
};

// `count` requests on one client; the outcome of the last one.
Outcome fetch(const std::string& url, const HttpClientOptions& options, int count = 1) {
  return ava::test::run_coroutine([&](asio::io_context& io) -> asio::awaitable<Outcome> {
    auto client = HttpClient::create(io.get_executor(), options);
    REQUIRE(client.has_value());
    Outcome outcome;
    HttpRequest request{.method = "POST", .url = url, .body = "{}"};
    ava::transport::BodyHandler on_body = [&](std::string_view chunk) -> ava::Result<void> {
      outcome.streamed.append(chunk);
      return {};
    };
    for (int i = 0; i < count; ++i) {
      outcome.streamed.clear();
      outcome.response = co_await (*client)->send(request, on_body);
    }
    co_return outcome;
  });
}

bool matches(std::string_view no_proxy, std::string_view host, std::uint16_t port = 443) {
  return ava::transport::no_proxy_matches(no_proxy, host, port);
}

ava::transport::Url url(std::string_view text) { return ava::transport::Url::parse(text).value(); }

}  // namespace

TEST_CASE("proxy: NO_PROXY matches suffixes, hosts, host:port and *", "[proxy]") {
  CHECK(matches("*", "api.openai.com"));
  CHECK(matches("example.com", "example.com"));
  CHECK(matches("example.com", "api.example.com"));
  CHECK(matches(".example.com", "api.example.com"));
  CHECK(matches("*.example.com", "api.example.com"));
  CHECK(matches("EXAMPLE.com", "Api.Example.COM"));
  CHECK_FALSE(matches("example.com", "notexample.com"));
  CHECK_FALSE(matches("api.example.com", "example.com"));
  CHECK(matches("localhost, 127.0.0.1", "127.0.0.1", 8080));
  CHECK(matches("internal:8443", "internal", 8443));
  CHECK_FALSE(matches("internal:8443", "internal", 443));
  CHECK(matches("::1", "::1"));
  CHECK(matches("[::1]:7000", "::1", 7000));
  CHECK_FALSE(matches("", "example.com"));
  CHECK_FALSE(matches(" , ", "example.com"));
}

TEST_CASE("proxy: the environment is read as curl reads it", "[proxy]") {
  auto config =
      ava::transport::proxy_config_from_env(ava::test::fake_env({{"HTTPS_PROXY", "http://upper:1"},
                                                                 {"https_proxy", "http://lower:2"},
                                                                 {"HTTP_PROXY", "http://plain:3"},
                                                                 {"NO_PROXY", "internal"}}));
  CHECK(config.https_proxy == "http://lower:2");
  CHECK(config.http_proxy == "http://plain:3");
  CHECK(config.no_proxy == "internal");
  // Under CGI, HTTP_PROXY may come from a client's "Proxy:" header.
  auto cgi = ava::transport::proxy_config_from_env(
      ava::test::fake_env({{"HTTP_PROXY", "http://evil:3"}, {"REQUEST_METHOD", "GET"}}));
  CHECK(cgi.http_proxy.empty());
}

TEST_CASE("proxy: a route is chosen per target scheme, with credentials taken out", "[proxy]") {
  ProxyConfig config{.https_proxy = "http://user:pa55@proxy.corp:3128",
                     .http_proxy = "plain.corp:8080",
                     .no_proxy = "internal"};
  auto https = ava::transport::proxy_for(url("https://api.anthropic.com/v1/messages"), config);
  REQUIRE(https.has_value());
  REQUIRE(https->has_value());
  CHECK((*https)->proxy.host == "proxy.corp");
  CHECK((*https)->proxy.port == 3128);
  CHECK((*https)->authorization == "Basic dXNlcjpwYTU1");
  CHECK((*https)->display() == "http://proxy.corp:3128");
  auto http = ava::transport::proxy_for(url("http://example.com/"), config);
  REQUIRE(http->has_value());
  CHECK((*http)->proxy.host == "plain.corp");
  CHECK((*http)->authorization.empty());
  CHECK_FALSE(ava::transport::proxy_for(url("https://internal/"), config)->has_value());
  CHECK_FALSE(ava::transport::proxy_for(url("https://x/"), ProxyConfig{})->has_value());
  auto tls_proxy =
      ava::transport::proxy_for(url("https://x/"), ProxyConfig{.https_proxy = "https://p:1"});
  REQUIRE_FALSE(tls_proxy.has_value());
  CHECK(tls_proxy.error().code == ava::ErrorCode::unsupported);
}

TEST_CASE("proxy: https goes through a CONNECT tunnel with TLS to the target inside it",
          "[proxy][tls]") {
  ava::test::TestPki pki;
  auto server = FakeProviderServer::start(
      {.tls = true, .certificate_chain = pki.cert(), .private_key = pki.key()});
  server->set_fallback([](const ava::test::RecordedRequest&) {
    return FakeReply{.chunks = {"data: tunnelled\n\n"}};
  });
  ConnectProxy proxy;
  HttpClientOptions options;
  options.ca_file = pki.ca();
  options.proxy =
      ProxyConfig{.https_proxy = "http://user:pa55@127.0.0.1:" + std::to_string(proxy.port())};
  // Two requests: the second reuses the tunnel.
  auto outcome = fetch(server->base_url() + "/v1/messages", options, 2);
  REQUIRE(outcome.response.has_value());
  CHECK(outcome.response->status == 200);
  CHECK(outcome.streamed == "data: tunnelled\n\n");
  auto heads = proxy.heads();
  REQUIRE(heads.size() == 1);
  CHECK_THAT(heads[0],
             Catch::StartsWith(fmt::format("CONNECT localhost:{} HTTP/1.1\r\n", server->port())));
  CHECK_THAT(heads[0], Catch::Contains("Proxy-Authorization: Basic dXNlcjpwYTU1\r\n"));
  CHECK(server->requests().size() == 2);
  CHECK(server->requests()[0].target == "/v1/messages");
  CHECK(server->requests()[0].header("proxy-authorization").empty());  // never past the proxy
}

TEST_CASE("proxy: http targets are sent to the proxy in absolute form", "[proxy]") {
  auto server = FakeProviderServer::start();
  server->enqueue(FakeReply{.chunks = {"plain"}});
  ConnectProxy proxy;
  HttpClientOptions options;
  options.proxy = ProxyConfig{.http_proxy = proxy.url()};
  auto outcome = fetch(server->base_url() + "/v1/chat/completions", options);
  REQUIRE(outcome.response.has_value());
  CHECK(outcome.streamed == "plain");
  std::string absolute = server->base_url() + "/v1/chat/completions";
  REQUIRE(proxy.heads().size() == 1);
  CHECK_THAT(proxy.heads()[0], Catch::StartsWith("POST " + absolute + " HTTP/1.1\r\n"));
  REQUIRE(server->requests().size() == 1);
  CHECK(server->requests()[0].target == absolute);
}

TEST_CASE("proxy: NO_PROXY sends matching hosts directly", "[proxy]") {
  auto server = FakeProviderServer::start();
  server->set_fallback(
      [](const ava::test::RecordedRequest&) { return FakeReply{.chunks = {"ok"}}; });
  ConnectProxy proxy;
  HttpClientOptions options;
  options.proxy =
      ProxyConfig{.https_proxy = proxy.url(), .http_proxy = proxy.url(), .no_proxy = "127.0.0.1"};
  auto direct = fetch(server->base_url() + "/x", options);
  REQUIRE(direct.response.has_value());
  CHECK(direct.streamed == "ok");
  CHECK(proxy.heads().empty());
  // An entry for another port does not bypass.
  options.proxy->no_proxy = "127.0.0.1:1";
  auto proxied = fetch(server->base_url() + "/x", options);
  REQUIRE(proxied.response.has_value());
  CHECK(proxy.heads().size() == 1);
}

TEST_CASE("proxy: a refused CONNECT is a typed error naming the proxy, not its password",
          "[proxy]") {
  ConnectProxy proxy(407);
  HttpClientOptions options;
  options.proxy =
      ProxyConfig{.https_proxy = "http://user:s3cret@127.0.0.1:" + std::to_string(proxy.port())};
  auto outcome = fetch("https://localhost:9/v1/messages", options);
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::permission_denied);
  CHECK_THAT(outcome.response.error().message,
             Catch::Contains(fmt::format("proxy http://127.0.0.1:{} refused CONNECT to "
                                         "localhost:9: 407",
                                         proxy.port())));
  CHECK_THAT(outcome.response.error().message, !Catch::Contains("s3cret"));
}

TEST_CASE("proxy: an unreachable proxy is reported as the proxy", "[proxy]") {
  std::string dead;
  {
    ConnectProxy proxy;
    dead = proxy.url();
  }
  HttpClientOptions options;
  options.proxy = ProxyConfig{.https_proxy = dead};
  auto outcome = fetch("https://localhost:9/", options);
  REQUIRE_FALSE(outcome.response.has_value());
  CHECK(outcome.response.error().code == ava::ErrorCode::unavailable);
  CHECK_THAT(outcome.response.error().message, Catch::StartsWith("connect to proxy " + dead));
}
