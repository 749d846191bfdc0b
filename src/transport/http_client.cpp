// The one translation unit that instantiates Beast's client code: keep Beast
// here and out of headers (each Beast TU costs ~30 s and 1 GB to compile).

#include "ava/transport/http_client.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <tuple>
#include <variant>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "ava/transport/proxy.hpp"
#include "ava/transport/url.hpp"

namespace ava::transport {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

constexpr auto no_throw = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t read_chunk_bytes = std::size_t{16} * 1024;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// One typed error per failure, naming the phase that failed.
Error network_error(const error_code& ec, std::string_view phase, const Url& url) {
  std::string where = fmt::format("{} {}", phase, url.origin());
  if (ec == beast::error::timeout)
    return Error{ErrorCode::timeout, fmt::format("{}: timed out", where)};
  if (ec == asio::error::operation_aborted)
    return Error{ErrorCode::cancelled, fmt::format("{}: cancelled", where)};
  if (ec == asio::error::connection_refused || ec == asio::error::host_not_found ||
      ec == asio::error::host_not_found_try_again || ec == asio::error::network_unreachable ||
      ec == asio::error::host_unreachable) {
    return Error{ErrorCode::unavailable, fmt::format("{}: {}", where, ec.message())};
  }
  if (ec.category() == asio::error::get_ssl_category() || ec == ssl::error::stream_truncated) {
    return Error{ErrorCode::protocol, fmt::format("{}: TLS: {}", where, ec.message())};
  }
  if (ec == http::error::body_limit || ec == http::error::header_limit ||
      ec == http::error::buffer_overflow) {
    return Error{ErrorCode::limit_exceeded, fmt::format("{}: {}", where, ec.message())};
  }
  if (ec.category() == http::make_error_code(http::error::bad_version).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message) {
    return Error{ErrorCode::protocol, fmt::format("{}: bad HTTP: {}", where, ec.message())};
  }
  return Error{ErrorCode::io, fmt::format("{}: {}", where, ec.message())};
}

// "host:port" as a CONNECT request names it (the port always written).
std::string authority(const Url& url) {
  bool ipv6 = url.host.find(':') != std::string::npos;
  return ipv6 ? fmt::format("[{}]:{}", url.host, url.port)
              : fmt::format("{}:{}", url.host, url.port);
}

// A connection to one origin, perhaps through a proxy: plain TCP, or TLS
// over TCP (over a CONNECT tunnel when proxied).
struct Connection {
  std::string key;  // the origin, plus the proxy it goes through
  std::variant<beast::tcp_stream, beast::ssl_stream<beast::tcp_stream>> stream;
  beast::flat_buffer buffer;
  bool reusable = false;
  // http:// through a proxy: requests name the whole URL and carry the
  // proxy's credentials.
  bool absolute_form = false;
  std::string proxy_authorization;

  beast::tcp_stream& tcp() {
    if (auto* plain = std::get_if<beast::tcp_stream>(&stream)) return *plain;
    return beast::get_lowest_layer(std::get<beast::ssl_stream<beast::tcp_stream>>(stream));
  }
};

Result<ssl::context> make_tls_context(const HttpClientOptions& options);

class BeastHttpClient final : public HttpClient {
 public:
  BeastHttpClient(asio::any_io_executor executor, HttpClientOptions options)
      : executor_(std::move(executor)),
        options_(std::move(options)),
        proxy_(options_.proxy ? *options_.proxy : proxy_config_from_env()) {}

  asio::awaitable<Result<HttpResponse>> send(const HttpRequest& request,
                                             const BodyHandler& on_body) override {
    // A coroutine, not a forwarding call: the handler must outlive the
    // exchange, which holds it by reference.
    const HeadHandler no_head;
    co_return co_await send(request, no_head, on_body);
  }

  asio::awaitable<Result<HttpResponse>> send(const HttpRequest& request, const HeadHandler& on_head,
                                             const BodyHandler& on_body) override {
    auto url = Url::parse(request.url);
    if (!url) co_return std::unexpected(url.error());
    auto routed = proxy_for(*url, proxy_);
    if (!routed) co_return std::unexpected(routed.error());
    std::optional<ProxyRoute> route = std::move(*routed);
    std::string key = url->origin();
    if (route) key += " via " + route->proxy.origin();
    // A kept-alive connection the server has since closed fails before any
    // response byte; such a request is safe to send once more on a new one.
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool reused = connection_ && connection_->reusable && connection_->key == key;
      if (!reused) {
        connection_.reset();
        auto connected = co_await connect(*url, route, key);
        if (!connected) co_return std::unexpected(connected.error());
        connection_ = std::move(*connected);
      }
      connection_->reusable = false;
      bool got_head = false;
      auto result = std::visit(
          [&](auto& stream) {
            return exchange(stream, *connection_, *url, request, on_head, on_body, got_head);
          },
          connection_->stream);
      auto response = co_await std::move(result);
      if (response) co_return response;
      connection_.reset();
      bool stale = reused && !got_head && (response.error().code == ErrorCode::io);
      if (!stale) co_return response;
    }
    co_return fail(ErrorCode::internal, "unreachable");
  }

  void close() override { connection_.reset(); }

 private:
  asio::awaitable<Result<std::unique_ptr<Connection>>> connect(
      const Url& url, const std::optional<ProxyRoute>& route, const std::string& key) {
    // With a proxy the TCP connection goes to the proxy; the target's name is
    // resolved by the proxy, never here.
    const Url& peer = route ? route->proxy : url;
    std::string_view phase = route ? "connect to proxy" : "connect";
    beast::tcp_stream tcp_layer(executor_);
    boost::system::error_code connect_ec;
    // An address literal (a local model server, the fake provider) skips the
    // resolver, whose first use starts a thread just to run getaddrinfo.
    boost::system::error_code not_literal;
    const asio::ip::address literal = asio::ip::make_address(peer.host, not_literal);
    if (!not_literal) {
      tcp_layer.expires_after(options_.timeouts.connect);
      std::tie(connect_ec) =
          co_await tcp_layer.async_connect(tcp::endpoint(literal, peer.port), no_throw);
    } else {
      tcp::resolver resolver(executor_);
      auto [resolve_ec, endpoints] =
          co_await resolver.async_resolve(peer.host, std::to_string(peer.port), no_throw);
      if (resolve_ec) co_return std::unexpected(network_error(resolve_ec, "resolve", peer));
      tcp_layer.expires_after(options_.timeouts.connect);
      std::tie(connect_ec, std::ignore) = co_await tcp_layer.async_connect(endpoints, no_throw);
    }
    if (connect_ec) co_return std::unexpected(network_error(connect_ec, phase, peer));
    tcp_layer.socket().set_option(tcp::no_delay(true));
    if (route && url.tls()) {
      AVA_CO_TRY_VOID(co_await open_tunnel(tcp_layer, url, *route));
    }
    if (!url.tls()) {
      auto connection =
          std::make_unique<Connection>(Connection{.key = key, .stream = std::move(tcp_layer)});
      if (route) {
        connection->absolute_form = true;
        connection->proxy_authorization = route->authorization;
      }
      co_return connection;
    }
    // Loading the certificate store costs tens of milliseconds, so a client
    // that only ever speaks plain HTTP (a local model server) never pays it.
    if (!tls_) {
      auto made = make_tls_context(options_);
      if (!made) co_return std::unexpected(std::move(made).error());
      tls_.emplace(std::move(*made));
    }
    auto connection = std::make_unique<Connection>(Connection{
        .key = key, .stream = beast::ssl_stream<beast::tcp_stream>(std::move(tcp_layer), *tls_)});
    if (auto* tls = std::get_if<beast::ssl_stream<beast::tcp_stream>>(&connection->stream)) {
      // SNI, then verify the chain and that the certificate names this host.
      // SSL_set_tlsext_host_name is a macro with an old-style cast; this is its body.
      if (SSL_ctrl(tls->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                   const_cast<char*>(url.host.c_str())) != 1) {
        co_return fail(ErrorCode::protocol, fmt::format("TLS: cannot set SNI for {}", url.host));
      }
      tls->set_verify_mode(ssl::verify_peer);
      tls->set_verify_callback(ssl::host_name_verification(url.host));
      connection->tcp().expires_after(options_.timeouts.connect);
      auto [handshake_ec] = co_await tls->async_handshake(ssl::stream_base::client, no_throw);
      if (handshake_ec)
        co_return std::unexpected(network_error(handshake_ec, "TLS handshake with", url));
    }
    co_return connection;
  }

  // Asks the proxy for a tunnel to the target; TLS to the target then runs
  // inside it, so the proxy sees only the host name and port.
  asio::awaitable<Result<void>> open_tunnel(beast::tcp_stream& stream, const Url& url,
                                            const ProxyRoute& route) {
    http::request<http::empty_body> connect{http::verb::connect, authority(url), 11};
    connect.set(http::field::host, authority(url));
    connect.set(http::field::user_agent, options_.user_agent);
    if (!route.authorization.empty())
      connect.set(http::field::proxy_authorization, route.authorization);
    stream.expires_after(options_.timeouts.connect);
    auto [write_ec, written] = co_await http::async_write(stream, connect, no_throw);
    if (write_ec)
      co_return std::unexpected(network_error(write_ec, "CONNECT through", route.proxy));
    beast::flat_buffer buffer;
    http::response_parser<http::empty_body> parser;
    parser.skip(true);  // a CONNECT reply has no body: the tunnel follows its head
    parser.header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    auto [read_ec, read] = co_await http::async_read_header(stream, buffer, parser, no_throw);
    if (read_ec)
      co_return std::unexpected(network_error(read_ec, "CONNECT reply from", route.proxy));
    auto status = parser.get().result_int();
    if (status < 200 || status >= 300) {
      co_return fail(status == 407 ? ErrorCode::permission_denied : ErrorCode::unavailable,
                     fmt::format("proxy {} refused CONNECT to {}: {} {}", route.display(),
                                 authority(url), status, std::string(parser.get().reason())));
    }
    if (buffer.size() != 0) {
      co_return fail(ErrorCode::protocol,
                     fmt::format("proxy {} sent data before the TLS handshake", route.display()));
    }
    co_return Result<void>{};
  }

  template <class Stream>
  asio::awaitable<Result<HttpResponse>> exchange(Stream& stream, Connection& connection,
                                                 const Url& url, const HttpRequest& request,
                                                 const HeadHandler& on_head,
                                                 const BodyHandler& on_body, bool& got_head) {
    beast::tcp_stream& tcp_layer = connection.tcp();
    std::string target = connection.absolute_form
                             ? fmt::format("{}://{}{}", url.scheme, url.host_header(), url.target)
                             : url.target;
    http::request<http::string_body> message{http::string_to_verb(request.method), target, 11};
    message.set(http::field::host, url.host_header());
    if (!connection.proxy_authorization.empty())
      message.set(http::field::proxy_authorization, connection.proxy_authorization);
    message.set(http::field::user_agent, options_.user_agent);
    for (const auto& header : request.headers) message.set(header.name, header.value);
    message.body() = request.body;
    message.keep_alive(true);
    message.prepare_payload();

    const auto deadline =
        options_.timeouts.total.count() > 0
            ? std::optional(std::chrono::steady_clock::now() + options_.timeouts.total)
            : std::nullopt;
    auto past_deadline = [&] {
      return Error{
          ErrorCode::timeout,
          fmt::format(
              "response body from {}: not complete after {} s, the limit for one "
              "response",
              url.origin(),
              std::chrono::duration_cast<std::chrono::seconds>(options_.timeouts.total).count())};
    };
    tcp_layer.expires_after(options_.timeouts.first_byte);
    auto [write_ec, written] = co_await http::async_write(stream, message, no_throw);
    if (write_ec) co_return std::unexpected(network_error(write_ec, "send to", url));

    http::response_parser<http::buffer_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    parser.body_limit(boost::none);  // streamed bodies are bounded by their consumer
    auto [head_ec, head_bytes] =
        co_await http::async_read_header(stream, connection.buffer, parser, no_throw);
    if (head_ec) co_return std::unexpected(network_error(head_ec, "response head from", url));
    got_head = true;

    HttpResponse response;
    response.status = static_cast<int>(parser.get().result_int());
    for (const auto& field : parser.get()) {
      response.headers.push_back(
          HttpHeader{std::string(field.name_string()), std::string(field.value())});
    }
    if (on_head) {
      if (auto accepted = on_head(response); !accepted) co_return std::unexpected(accepted.error());
    }
    bool stream_body = on_body && response.status >= 200 && response.status < 300;
    std::array<char, read_chunk_bytes> chunk{};
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      auto wait = options_.timeouts.idle;
      if (deadline) {
        // Rounded up, so a timeout at the end is past the deadline.
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(
            *deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) co_return std::unexpected(past_deadline());
        wait = std::min(wait, left);
      }
      tcp_layer.expires_after(wait);
      auto [read_ec, read_bytes] =
          co_await http::async_read_some(stream, connection.buffer, parser, no_throw);
      if (read_ec && read_ec != http::error::need_buffer) {
        if (read_ec == beast::error::timeout && deadline &&
            std::chrono::steady_clock::now() >= *deadline) {
          co_return std::unexpected(past_deadline());
        }
        co_return std::unexpected(network_error(read_ec, "response body from", url));
      }
      std::size_t filled = chunk.size() - parser.get().body().size;
      std::string_view data(chunk.data(), filled);
      if (data.empty()) continue;
      if (stream_body) {
        if (auto accepted = on_body(data); !accepted) co_return std::unexpected(accepted.error());
      } else {
        if (response.body.size() + data.size() > options_.max_body_bytes) {
          co_return fail(ErrorCode::limit_exceeded,
                         fmt::format("response from {} exceeds {} bytes", url.origin(),
                                     options_.max_body_bytes));
        }
        response.body.append(data);
      }
    }
    connection.reusable = parser.keep_alive();
    co_return response;
  }

  asio::any_io_executor executor_;
  HttpClientOptions options_;
  ProxyConfig proxy_;                // options_.proxy, or the environment's at creation
  std::optional<ssl::context> tls_;  // made on the first https connection
  std::unique_ptr<Connection> connection_;
};

Result<ssl::context> make_tls_context(const HttpClientOptions& options) try {
  ssl::context context(ssl::context::tls_client);
  context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                      ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  error_code ec;
  context.set_default_verify_paths(
      ec);  // the system store (OpenSSL honours SSL_CERT_FILE here too)
  if (ec)
    return fail(ErrorCode::io,
                fmt::format("TLS: cannot load the system certificate store: {}", ec.message()));
  std::optional<std::filesystem::path> extra = options.ca_file;
  if (!extra) {
    if (const char* env = std::getenv("SSL_CERT_FILE"); env != nullptr && *env != '\0') extra = env;
  }
  if (extra) {
    context.load_verify_file(extra->string(), ec);
    if (ec) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("TLS: cannot load CA bundle {}: {}", extra->string(), ec.message()));
    }
  }
  context.set_verify_mode(ssl::verify_peer);
  return context;
} catch (const boost::system::system_error& e) {
  return fail(ErrorCode::io, fmt::format("TLS setup failed: {}", e.what()));
}

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& header : headers) {
    if (iequals(header.name, name)) return header.value;
  }
  return {};
}

Result<std::unique_ptr<HttpClient>> HttpClient::create(asio::any_io_executor executor,
                                                       HttpClientOptions options) {
  // A CA bundle that cannot be read is a configuration error now, not at
  // the first https request.
  if (options.ca_file) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*options.ca_file, ec)) {
      return fail(ErrorCode::invalid_argument,
                  fmt::format("TLS: no CA bundle at {}", options.ca_file->string()));
    }
  }
  return std::make_unique<BeastHttpClient>(std::move(executor), std::move(options));
}

}  // namespace ava::transport
