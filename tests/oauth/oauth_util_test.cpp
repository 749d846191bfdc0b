#include <catch2/catch.hpp>

#include "ava/base/base64.hpp"
#include "oauth/internal.hpp"

namespace oauth = ava::oauth;

TEST_CASE("OAuth: PKCE S256 matches RFC 7636 appendix B", "[mcp][oauth]") {
  const std::string verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  CHECK(ava::base::base64url_encode(oauth::sha256(verifier)) ==
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  const auto random = oauth::random_token(32);
  CHECK(random.size() == 43);  // RFC 7636: 43 to 128 characters
  CHECK(random != oauth::random_token(32));
  CHECK(ava::base::base64_encode("a:b c") == "YTpiIGM=");  // client_secret_basic
}

TEST_CASE("OAuth: WWW-Authenticate Bearer parameters", "[mcp][oauth]") {
  const auto challenge = oauth::parse_challenge(
      R"(Bearer error="insufficient_scope", scope="mcp:basic mcp:write", )"
      R"(resource_metadata="http://h:1/.well-known/oauth-protected-resource/mcp", )"
      R"(error_description="say \"no\"")");
  CHECK(challenge.error == "insufficient_scope");
  CHECK(challenge.scope == "mcp:basic mcp:write");
  CHECK(challenge.resource_metadata == "http://h:1/.well-known/oauth-protected-resource/mcp");
  CHECK(oauth::parse_challenge("Bearer realm=x,scope=read").scope == "read");
  CHECK(oauth::parse_challenge("Basic").error.empty());
}

TEST_CASE("OAuth: resource matching, scopes and forms", "[mcp][oauth]") {
  CHECK(oauth::resource_covers("https://h/mcp", "https://h/mcp"));
  CHECK(oauth::resource_covers("https://h/", "https://h/mcp"));
  CHECK(oauth::resource_covers("https://h", "https://h/a/mcp"));
  CHECK(!oauth::resource_covers("https://h/mc", "https://h/mcp"));
  CHECK(!oauth::resource_covers("https://other/mcp", "https://h/mcp"));
  CHECK(!oauth::resource_covers("http://h/mcp", "https://h/mcp"));
  CHECK(oauth::scope_union("a b", "b c") == "a b c");
  CHECK(oauth::scope_union("", "x") == "x");
  const auto parsed = ava::base::parse_query("code=x%2By&state=a+b&empty=&flag");
  REQUIRE(parsed);
  CHECK(oauth::param(*parsed, "code") == "x+y");
  CHECK(oauth::param(*parsed, "state") == "a b");
  CHECK(oauth::param(*parsed, "flag").empty());
  CHECK(oauth::with_query("http://h/a?x=1", {{"y", "2"}}) == "http://h/a?x=1&y=2");
}
