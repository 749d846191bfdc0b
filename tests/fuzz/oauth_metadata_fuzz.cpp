// OAuth for MCP servers: what an authorization server or protected resource
// sends (metadata documents, token answers, WWW-Authenticate challenges) and
// what the browser's redirect brings back (the callback query).
//
// Metadata documents are interpreted inside the discovery coroutine
// (oauth_discovery.cpp: check_server_metadata is file-local, the resource
// metadata is read inline), so this target calls the pure pieces that work
// is made of: the body decoded as every OAuth document is (parse_document),
// every string in it through check_endpoint, Url::parse and
// resource_covers, expires_in through parse_expires_in, scope lists through
// scope_union, and the document as stored credentials
// (OAuthCredentials::from_json, which keeps the metadata). The same bytes
// are also a challenge header (parse_challenge) and a callback query
// (base's parse_query, percent_encode and form_encode through Boost.URL,
// oauth's with_query) and base64(url).
//
// Checks: nothing throws and nothing is undefined; an accepted endpoint is
// https, or http to a loopback host, without fragment, space or control
// character; a parsed URL covers itself and covering is transitive;
// expires_in is within [0, max_expires_in]; scope_union keeps each word
// once, the first list's first; form_encode/parse_query round-trip, and a
// percent-encoded value decodes to itself (NUL refused); credentials round-trip through
// to_json. The bytes are also a PEM private key (jwt.hpp): refused or
// usable for signing, never a passphrase prompt.
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ava/base/base64.hpp"
#include "ava/base/json.hpp"
#include "ava/base/text.hpp"
#include "ava/base/url_encoding.hpp"
#include "ava/oauth/jwt.hpp"
#include "ava/transport/url.hpp"
#include "fuzz/fuzz_check.hpp"
#include "oauth/internal.hpp"

namespace {

using nlohmann::json;
namespace oauth = ava::oauth;

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

void check_urls(const std::vector<std::string>& urls) {
  std::vector<std::string> valid;
  for (const auto& text : urls) {
    if (oauth::check_endpoint("endpoint", text)) {
      const auto url = ava::transport::Url::parse(text);
      FUZZ_CHECK(url.has_value());
      FUZZ_CHECK(url->scheme == "https" || url->scheme == "http");
      if (url->scheme == "http") {
        // A loopback host: localhost, 127.0.0.0/8 or an IPv6 literal (::1).
        FUZZ_CHECK(ava::base::ascii_lower(url->host) == "localhost" ||
                   url->host.starts_with("127.") || url->host.find(':') != std::string::npos);
      }
      for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        FUZZ_CHECK(byte > 0x20 && byte != 0x7f && c != '#');
      }
    }
    const auto url = ava::transport::Url::parse(text);
    if (!url) continue;
    FUZZ_CHECK(url->scheme == "http" || url->scheme == "https");
    FUZZ_CHECK(!url->target.empty() && url->target.front() == '/');
    FUZZ_CHECK(url->origin().starts_with(url->scheme + "://"));
    FUZZ_CHECK(oauth::resource_covers(text, text));
    valid.push_back(text);
    if (valid.size() == 4) break;
  }
  for (const auto& a : valid) {
    for (const auto& b : valid) {
      if (!oauth::resource_covers(a, b)) continue;
      for (const auto& c : valid) {
        if (oauth::resource_covers(b, c)) FUZZ_CHECK(oauth::resource_covers(a, c));
      }
    }
  }
}

void check_scopes(std::string_view a, std::string_view b) {
  const auto joined = oauth::scope_union(a, b);
  const auto words = words_of(joined);
  FUZZ_CHECK(std::set<std::string>(words.begin(), words.end()).size() == words.size());
  std::set<std::string> expected;
  for (const auto& word : words_of(a)) expected.insert(word);
  for (const auto& word : words_of(b)) expected.insert(word);
  FUZZ_CHECK(std::set<std::string>(words.begin(), words.end()) == expected);
  const auto first = words_of(a);
  if (!first.empty()) FUZZ_CHECK(!words.empty() && words.front() == first.front());
}

// Every string in the document (strings in arrays one level down too).
void strings_of(const json& value, std::vector<std::string>& out, int depth = 0) {
  if (value.is_string()) out.push_back(value.get<std::string>());
  if (!value.is_structured() || depth > 1) return;
  for (const auto& child : value) strings_of(child, out, depth + 1);
}

void check_metadata(const json& doc) {
  std::vector<std::string> strings;
  strings_of(doc, strings);
  check_urls(strings);
  std::string scopes;
  for (const auto& key : {"scopes_supported", "scope"}) {
    const auto list = ava::base::json_field<json>(doc, key);
    if (list && list->is_array()) {
      for (const auto& item : *list) {
        if (item.is_string()) scopes += item.get<std::string>() + " ";
      }
    }
  }
  check_scopes(scopes, ava::base::json_value(doc, "scope", "openid offline_access"));
  if (const auto seconds = oauth::parse_expires_in(doc)) {
    FUZZ_CHECK(*seconds >= 0 && *seconds <= oauth::max_expires_in);
  }

  const auto stored = ava::oauth::OAuthCredentials::from_json(doc);
  if (!stored) return;
  const json written = stored->to_json();
  const auto again = ava::oauth::OAuthCredentials::from_json(written);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->to_json() == written);
}

void check_query(std::string_view text) {
  // A redirect a tunnel's client hands over: hostile text, and no sign-in
  // waits, so nothing may take it.
  ava::oauth::RedirectRelay relay("http://127.0.0.1:1/callback");
  FUZZ_CHECK(!relay.deliver(text));
  const auto single = ava::base::parse_query("k=" + ava::base::percent_encode(text));
  if (text.find('\0') == std::string_view::npos) {
    const ava::base::QueryParams expected{{"k", std::string(text)}};
    FUZZ_CHECK(single && *single == expected);
  } else {
    FUZZ_CHECK(!single);
  }
  if (const auto params = ava::base::parse_query(text)) {
    const auto encoded = ava::base::form_encode(*params);
    FUZZ_CHECK(ava::base::parse_query(encoded) == *params);
    if (!params->empty()) {
      FUZZ_CHECK(oauth::param(*params, params->front().first) == params->front().second);
    }
    const auto url = oauth::with_query("https://as.example/authorize", *params);
    FUZZ_CHECK(ava::base::parse_query(std::string_view(url).substr(url.find('?') + 1)) == *params);
  }
  const auto plain = ava::base::base64_encode(text);
  FUZZ_CHECK(plain.size() == (text.size() + 2) / 3 * 4);
  const auto safe = ava::base::base64url_encode(text);
  FUZZ_CHECK(safe.size() == (text.size() * 4 + 2) / 3);
  FUZZ_CHECK(plain.substr(0, safe.size()).find_first_of("+/") == safe.find_first_of("-_"));
}

}  // namespace

// A configured private key (from the API or an imported mcpServers file):
// read without a passphrase prompt within the size bound; a key that is
// accepted signs, and its JWT has three base64url parts.
void check_private_key(std::string_view text) {
  const auto algorithm = oauth::signing_algorithm(text, "");
  if (!algorithm) {
    // Fixed text that never quotes the key: short, printable ASCII.
    const auto& message = algorithm.error().message;
    FUZZ_CHECK(message.size() <= 200);
    FUZZ_CHECK(std::ranges::all_of(message, [](char c) { return c >= 0x20 && c < 0x7f; }));
    return;
  }
  FUZZ_CHECK(text.size() <= oauth::max_private_key_bytes);
  const auto jwt = oauth::sign_jwt(text, *algorithm, json::object(), json{{"iss", "c"}});
  FUZZ_CHECK(jwt.has_value());
  FUZZ_CHECK(std::count(jwt->begin(), jwt->end(), '.') == 2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = ava::fuzz::as_text(data, size);
  if (const auto doc = oauth::parse_document(text); doc && doc->is_object()) check_metadata(*doc);

  const auto challenge = oauth::parse_challenge(text);
  FUZZ_CHECK(challenge.error.size() <= size && challenge.scope.size() <= size &&
             challenge.resource_metadata.size() <= size);
  check_urls({challenge.resource_metadata});
  check_scopes(challenge.scope, text);

  check_query(text);
  check_private_key(text);
  return 0;
}
