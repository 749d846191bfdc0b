// OAuth against metadata a hostile server could serve: endpoints that are
// not https (javascript:, data:, file:, plain http to another host), a
// missing or foreign issuer, absurd expires_in values; and the loopback
// redirect listener against a connection that never speaks.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "oauth/internal.hpp"
#include "support/fake_provider.hpp"
#include "support/run_coroutine.hpp"

namespace asio = boost::asio;
namespace oauth = ava::oauth;
using ava::ErrorCode;
using ava::test::FakeReply;
using ava::test::run_coroutine;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("OAuth endpoints must be https or loopback http", "[mcp][oauth][hardening]") {
  for (const char* good :
       {"https://auth.example.com/authorize", "HTTPS://auth.example.com:8443/t?x=1",
        "http://127.0.0.1:5000/token", "http://127.9.8.7/token", "http://localhost:9/register",
        "http://[::1]:7/authorize"}) {
    CAPTURE(good);
    CHECK(oauth::check_endpoint("token_endpoint", good).has_value());
  }
  for (const char* bad :
       {"javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
        "http://auth.example.com/token", "http://127.0.0.1.evil.example/token",
        "http://0x7f000001/token", "ftp://auth.example.com/token", "https://a.example/x y",
        "https://a.example/x#fragment", "", "//auth.example.com/token"}) {
    CAPTURE(bad);
    auto refused = oauth::check_endpoint("authorization_endpoint", bad);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == ErrorCode::protocol);
    CHECK_THAT(refused.error().message, Catch::Contains("authorization_endpoint"));
  }
}

TEST_CASE("OAuth expires_in is bounded and never converted unchecked", "[mcp][oauth][hardening]") {
  const auto year = oauth::max_expires_in;
  auto parse = [](const json& value) { return oauth::parse_expires_in({{"expires_in", value}}); };
  CHECK(parse(3600) == 3600);
  CHECK(parse(0) == 0);
  CHECK(parse("3600") == 3600);
  CHECK(parse(3600.9) == 3600);
  CHECK(parse(1e300) == year);
  CHECK(parse(year + 1) == year);
  CHECK(parse(json(std::uint64_t{18446744073709551615ULL})) == year);
  CHECK(parse("99999999999999999999999999") == year);
  CHECK_FALSE(parse(-5).has_value());
  CHECK_FALSE(parse(-1e300).has_value());
  CHECK_FALSE(parse("-5").has_value());
  CHECK_FALSE(parse("12abc").has_value());
  CHECK_FALSE(parse("").has_value());
  CHECK_FALSE(parse(json::object()).has_value());
  CHECK_FALSE(parse(nullptr).has_value());
  CHECK_FALSE(oauth::parse_expires_in(json::object()).has_value());
  CHECK_FALSE(oauth::parse_expires_in(json::array()).has_value());
}

namespace {

// Serves the resource metadata and the authorization server metadata the
// test sets; the issuer is the fake server itself.
struct MetadataServer {
  std::unique_ptr<ava::test::FakeProviderServer> server = ava::test::FakeProviderServer::start();
  json resource = json::object();  // null: 404, a 2025-03-26 server
  json metadata = json::object();  // null: 404

  MetadataServer() {
    resource = {{"resource", mcp_url()}, {"authorization_servers", {base()}}};
    metadata = {{"issuer", base()},
                {"authorization_endpoint", base() + "/authorize"},
                {"token_endpoint", base() + "/token"},
                {"registration_endpoint", base() + "/register"},
                {"code_challenge_methods_supported", {"S256"}}};
    server->set_fallback([this](const ava::test::RecordedRequest& request) {
      auto reply = [](const json& body) {
        if (body.is_null()) return FakeReply{.status = 404, .content_type = "text/plain"};
        return FakeReply{.content_type = "application/json", .chunks = {body.dump()}};
      };
      if (request.target.starts_with("/.well-known/oauth-protected-resource")) {
        return reply(resource);
      }
      if (request.target.starts_with("/.well-known/oauth-authorization-server")) {
        return reply(metadata);
      }
      return FakeReply{.status = 404, .content_type = "text/plain"};
    });
  }
  std::string base() const { return server->base_url(); }
  std::string mcp_url() const { return base() + "/mcp"; }

  ava::Result<oauth::Discovery> discover() const {
    return run_coroutine(
        [this](asio::io_context&) -> asio::awaitable<ava::Result<oauth::Discovery>> {
          ava::transport::HttpClientOptions options;
          options.proxy = ava::transport::ProxyConfig{};
          co_return co_await oauth::discover(options, mcp_url(), "");
        });
  }
};

}  // namespace

TEST_CASE("OAuth discovery accepts good metadata", "[mcp][oauth][hardening]") {
  MetadataServer fake;
  auto found = fake.discover();
  REQUIRE(found.has_value());
  CHECK(found->server_metadata["token_endpoint"] == fake.base() + "/token");
}

TEST_CASE("OAuth discovery refuses endpoints that are not https, naming the field",
          "[mcp][oauth][hardening]") {
  struct Case {
    const char* field;
    json value;
  };
  auto bad = GENERATE(Case{"authorization_endpoint", "javascript:alert(1)"},
                      Case{"authorization_endpoint", "data:text/html,hello"},
                      Case{"token_endpoint", "http://auth.example.com/token"},
                      Case{"token_endpoint", "file:///etc/passwd"},
                      Case{"registration_endpoint", "http://auth.example.com/register"},
                      Case{"registration_endpoint", 5});
  MetadataServer fake;
  fake.metadata[bad.field] = bad.value;
  auto found = fake.discover();
  REQUIRE_FALSE(found.has_value());
  CHECK(found.error().code == ErrorCode::protocol);
  CHECK_THAT(found.error().message, Catch::Contains(bad.field));
}

TEST_CASE("OAuth discovery requires the issuer the metadata was fetched for",
          "[mcp][oauth][hardening]") {
  MetadataServer fake;
  SECTION("missing") {
    fake.metadata.erase("issuer");
    auto found = fake.discover();
    REQUIRE_FALSE(found.has_value());
    CHECK_THAT(found.error().message, Catch::Contains("lacks issuer"));
  }
  SECTION("of the wrong type") {
    fake.metadata["issuer"] = json::array();
    CHECK_FALSE(fake.discover().has_value());
  }
  SECTION("another issuer") {
    fake.metadata["issuer"] = "https://evil.example";
    auto found = fake.discover();
    REQUIRE_FALSE(found.has_value());
    CHECK_THAT(found.error().message, Catch::Contains("instead of"));
  }
  SECTION("the resource metadata's authorization server must be https") {
    fake.resource["authorization_servers"] = {"http://auth.example.com"};
    auto found = fake.discover();
    REQUIRE_FALSE(found.has_value());
    CHECK_THAT(found.error().message, Catch::Contains("authorization_servers"));
  }
  SECTION("a 2025-03-26 server's issuer stays on its origin") {
    fake.resource = nullptr;
    fake.metadata["issuer"] = fake.base() + "/oauth";  // as the conformance suite serves it
    CHECK(fake.discover().has_value());
    fake.metadata["issuer"] = "https://evil.example";
    auto found = fake.discover();
    REQUIRE_FALSE(found.has_value());
    CHECK_THAT(found.error().message, Catch::Contains("another origin"));
    fake.metadata.erase("issuer");
    CHECK_FALSE(fake.discover().has_value());
  }
}

TEST_CASE("OAuth: a javascript: authorization endpoint never reaches the opener",
          "[mcp][oauth][hardening]") {
  MetadataServer fake;
  fake.metadata["authorization_endpoint"] = "javascript:alert(1)";
  std::vector<std::string> opened;
  run_coroutine([&](asio::io_context& io) -> asio::awaitable<bool> {
    oauth::OAuthConfig config;
    config.server_name = "hostile";
    config.server_url = fake.mcp_url();
    config.store = std::make_shared<oauth::MemoryCredentialStore>();
    config.open_url = [&opened](std::string url) -> asio::awaitable<ava::Result<void>> {
      opened.push_back(std::move(url));
      co_return ava::Result<void>{};
    };
    config.login_timeout = 5s;
    config.http.proxy = ava::transport::ProxyConfig{};
    auto client = oauth::OAuthClient::create(io.get_executor(), std::move(config));
    const std::string scope;
    auto signed_in = co_await client->login(scope);
    REQUIRE_FALSE(signed_in.has_value());
    CHECK_THAT(signed_in.error().message, Catch::Contains("authorization_endpoint"));
    co_return true;
  });
  CHECK(opened.empty());
}

namespace {

asio::awaitable<ava::Result<void>> get(std::string url) {
  ava::transport::HttpClientOptions options;
  options.proxy = ava::transport::ProxyConfig{};
  auto opener = oauth::http_get_opener(options);
  co_return co_await opener(std::move(url));
}

}  // namespace

TEST_CASE("OAuth redirect listener: an idle connection does not stall the sign-in",
          "[mcp][oauth][hardening]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto opened = oauth::RedirectListener::open(io.get_executor(), 300ms);
    REQUIRE(opened.has_value());
    auto listener = std::move(*opened);
    const auto uri = listener->redirect_uri();
    const auto port = static_cast<std::uint16_t>(std::stoi(uri.substr(uri.rfind(':') + 1)));

    std::optional<ava::Result<oauth::Params>> received;
    const std::string expected = "expected";
    asio::co_spawn(io, listener->wait(expected),
                   [&](const std::exception_ptr&, ava::Result<oauth::Params> params) {
                     received = std::move(params);
                   });
    // Connects first and never sends a byte.
    asio::ip::tcp::socket idle(io);
    const asio::ip::tcp::endpoint where(asio::ip::make_address_v4("127.0.0.1"), port);
    co_await idle.async_connect(where, asio::use_awaitable);
    const auto started = std::chrono::steady_clock::now();
    const auto callback = uri + "?state=expected&code=the-code";
    auto answered = co_await get(callback);
    CHECK(answered.has_value());
    CHECK(std::chrono::steady_clock::now() - started < 5s);
    asio::steady_timer settle(io, 50ms);
    co_await settle.async_wait(asio::use_awaitable);
    REQUIRE(received.has_value());
    REQUIRE(received->has_value());
    CHECK(oauth::param(**received, "code") == "the-code");
    co_return true;
  });
}

TEST_CASE("OAuth redirect listener: cancel closes the connection being read",
          "[mcp][oauth][hardening]") {
  run_coroutine([](asio::io_context& io) -> asio::awaitable<bool> {
    auto opened = oauth::RedirectListener::open(io.get_executor(), 60s);
    REQUIRE(opened.has_value());
    auto listener = std::move(*opened);
    const auto uri = listener->redirect_uri();
    const auto port = static_cast<std::uint16_t>(std::stoi(uri.substr(uri.rfind(':') + 1)));
    std::optional<ava::Result<oauth::Params>> received;
    const std::string expected = "expected";
    asio::co_spawn(io, listener->wait(expected),
                   [&](const std::exception_ptr&, ava::Result<oauth::Params> params) {
                     received = std::move(params);
                   });
    asio::ip::tcp::socket idle(io);
    const asio::ip::tcp::endpoint where(asio::ip::make_address_v4("127.0.0.1"), port);
    co_await idle.async_connect(where, asio::use_awaitable);
    asio::steady_timer settle(io, 100ms);
    co_await settle.async_wait(asio::use_awaitable);  // accepted and being read
    listener->cancel();
    std::array<char, 16> buffer{};
    auto [error, count] =
        co_await asio::async_read(idle, asio::buffer(buffer), asio::as_tuple(asio::use_awaitable));
    CHECK(error == asio::error::eof);  // the listener closed its end
    settle.expires_after(50ms);
    co_await settle.async_wait(asio::use_awaitable);
    REQUIRE(received.has_value());
    REQUIRE_FALSE(received->has_value());
    CHECK(received->error().code == ErrorCode::cancelled);
    co_return true;
  });
}
