#include <arpa/inet.h>
#include <netinet/in.h>

#include <array>
#include <cctype>
#include <cstring>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <boost/asio/this_coro.hpp>

#include "ava/base/base64.hpp"
#include "ava/base/json.hpp"
#include "ava/base/log.hpp"
#include "ava/base/text.hpp"
#include "ava/transport/url.hpp"
#include "oauth/internal.hpp"

namespace ava::oauth {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

bool loopback_host(const std::string& host) {
  if (base::ascii_lower(host) == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24U) == 127U;
  in6_addr v6{};
  return ::inet_pton(AF_INET6, host.c_str(), &v6) == 1 &&
         std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
}

}  // namespace

Result<void> check_endpoint(std::string_view field, std::string_view url) {
  auto refuse = [&](std::string_view why) {
    return fail(ErrorCode::protocol,
                fmt::format("OAuth {} {} is refused: {}", field, base::redact_url(url), why));
  };
  for (const char c : url) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f) return refuse("it contains spaces or control characters");
  }
  if (url.find('#') != std::string_view::npos) return refuse("an endpoint has no fragment");
  auto parsed = transport::Url::parse(url);
  if (!parsed) return refuse("it must be an https URL");
  if (parsed->scheme == "https") return {};
  if (loopback_host(parsed->host)) return {};
  return refuse("plain http is only accepted to a loopback host; use https");
}

Result<json> parse_document(std::string_view text) {
  return base::parse_json(text, base::JsonLimits{.max_depth = 32, .max_bytes = max_document_bytes});
}

std::string param(const Params& params, std::string_view name) {
  for (const auto& [key, value] : params) {
    if (key == name) return value;
  }
  return {};
}

std::string with_query(std::string_view url, const Params& params) {
  std::string out(url);
  out += url.find('?') == std::string_view::npos ? '?' : '&';
  return out + base::form_encode(params);
}

std::string sha256(std::string_view bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
}

std::string random_token(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    // Without a CSPRNG there is no safe verifier: crash loudly rather than
    // sign in with a guessable one.
    std::abort();
  }
  return base::base64url_encode(raw);
}

Challenge parse_challenge(std::string_view header) {
  // auth-param = token "=" ( token / quoted-string ), separated by commas;
  // scheme names stand alone. Only Bearer's parameters are wanted, and
  // servers send one scheme, so parameters of any scheme are read.
  Challenge out;
  std::size_t i = 0;
  auto skip = [&] {
    while (i < header.size() && (header[i] == ' ' || header[i] == ',' || header[i] == '\t')) ++i;
  };
  while (i < header.size()) {
    skip();
    const auto start = i;
    while (i < header.size() && header[i] != '=' && header[i] != ' ' && header[i] != ',') ++i;
    std::string name = base::ascii_lower(header.substr(start, i - start));
    skip();
    if (i >= header.size() || header[i] != '=') continue;  // a scheme name
    ++i;
    std::string value;
    if (i < header.size() && header[i] == '"') {
      for (++i; i < header.size() && header[i] != '"'; ++i) {
        if (header[i] == '\\' && i + 1 < header.size()) ++i;
        value += header[i];
      }
      ++i;
    } else {
      while (i < header.size() && header[i] != ',' && header[i] != ' ') value += header[i++];
    }
    if (name == "error") out.error = value;
    if (name == "scope") out.scope = value;
    if (name == "resource_metadata") out.resource_metadata = value;
  }
  return out;
}

std::string scope_union(std::string_view a, std::string_view b) {
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (auto list : {a, b}) {
    std::istringstream words{std::string(list)};
    for (std::string word; words >> word;) {
      if (seen.insert(word).second) order.push_back(word);
    }
  }
  std::string out;
  for (const auto& word : order) out += (out.empty() ? "" : " ") + word;
  return out;
}

asio::awaitable<Result<transport::HttpResponse>> http_send(transport::HttpClientOptions options,
                                                           transport::HttpRequest request) {
  auto executor = co_await asio::this_coro::executor;
  AVA_CO_TRY(auto client, transport::HttpClient::create(executor, std::move(options)));
  const transport::BodyHandler no_handler;
  co_return co_await client->send(request, no_handler);
}

asio::awaitable<Result<json>> get_json(transport::HttpClientOptions options, std::string url) {
  transport::HttpRequest request{.method = "GET", .url = url, .headers = {}, .body = {}};
  request.headers.push_back({"Accept", "application/json"});
  request.headers.push_back({"MCP-Protocol-Version", "2025-11-25"});
  AVA_CO_TRY(auto response, co_await http_send(std::move(options), std::move(request)));
  if (response.status >= 400 && response.status < 500) {
    co_return fail(ErrorCode::not_found,
                   fmt::format("{} answered HTTP {}", base::redact_url(url), response.status));
  }
  if (response.status != 200) {
    co_return fail(ErrorCode::protocol,
                   fmt::format("{} answered HTTP {}", base::redact_url(url), response.status));
  }
  auto value = parse_document(response.body);
  if (!value || !value->is_object()) {
    co_return fail(ErrorCode::parse,
                   fmt::format("{} did not answer a JSON object{}{}", base::redact_url(url),
                               value ? "" : ": ", value ? "" : value.error().message));
  }
  co_return std::move(*value);
}

}  // namespace ava::oauth
