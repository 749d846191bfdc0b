#include <catch2/catch.hpp>

#include "ava/transport/url.hpp"

using ava::transport::join_url;
using ava::transport::Url;

TEST_CASE("url parses scheme, host, default port and target", "[url]") {
  auto url = Url::parse("https://api.anthropic.com/v1/messages?beta=true");
  REQUIRE(url.has_value());
  CHECK(url->scheme == "https");
  CHECK(url->host == "api.anthropic.com");
  CHECK(url->port == 443);
  CHECK(url->target == "/v1/messages?beta=true");
  CHECK(url->host_header() == "api.anthropic.com");
  CHECK(url->origin() == "https://api.anthropic.com:443");
}

TEST_CASE("url keeps explicit ports and IPv6 literals", "[url]") {
  auto local = Url::parse("http://127.0.0.1:11434");
  REQUIRE(local.has_value());
  CHECK(local->port == 11434);
  CHECK(local->target == "/");
  CHECK(local->host_header() == "127.0.0.1:11434");
  auto ipv6 = Url::parse("http://[::1]:8080/v1");
  REQUIRE(ipv6.has_value());
  CHECK(ipv6->host == "::1");
  CHECK(ipv6->host_header() == "[::1]:8080");
}

TEST_CASE("url refuses other schemes, user info and bad ports", "[url]") {
  CHECK_FALSE(Url::parse("ftp://x").has_value());
  CHECK_FALSE(Url::parse("api.openai.com/v1").has_value());
  CHECK_FALSE(Url::parse("https://user:pw@host/").has_value());
  CHECK_FALSE(Url::parse("http://host:99999/").has_value());
  CHECK_FALSE(Url::parse("http://:80/").has_value());
}

TEST_CASE("join_url puts exactly one slash between base and path", "[url]") {
  CHECK(join_url("https://api.openai.com/v1/", "/chat/completions") ==
        "https://api.openai.com/v1/chat/completions");
  CHECK(join_url("http://localhost:1234/v1", "responses") == "http://localhost:1234/v1/responses");
}
