// The one translation unit that instantiates Beast's client code: keep Beast
// here and out of headers (each Beast TU costs ~30 s and 1 GB to compile).

#include "ava/transport/http_client.hpp"

#include <array>
#include <cstdlib>
#include <optional>
#include <variant>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

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

// A connection to one origin: plain TCP or TLS over TCP.
struct Connection {
  std::string origin;
  std::variant<beast::tcp_stream, beast::ssl_stream<beast::tcp_stream>> stream;
  beast::flat_buffer buffer;
  bool reusable = false;

  beast::tcp_stream& tcp() {
    if (auto* plain = std::get_if<beast::tcp_stream>(&stream)) return *plain;
    return beast::get_lowest_layer(std::get<beast::ssl_stream<beast::tcp_stream>>(stream));
  }
};

class BeastHttpClient final : public HttpClient {
 public:
  BeastHttpClient(asio::any_io_executor executor, HttpClientOptions options, ssl::context tls)
      : executor_(std::move(executor)), options_(std::move(options)), tls_(std::move(tls)) {}

  asio::awaitable<Result<HttpResponse>> send(const HttpRequest& request,
                                             const BodyHandler& on_body) override {
    auto url = Url::parse(request.url);
    if (!url) co_return std::unexpected(url.error());
    // A kept-alive connection the server has since closed fails before any
    // response byte; such a request is safe to send once more on a new one.
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool reused = connection_ && connection_->reusable && connection_->origin == url->origin();
      if (!reused) {
        connection_.reset();
        auto connected = co_await connect(*url);
        if (!connected) co_return std::unexpected(connected.error());
        connection_ = std::move(*connected);
      }
      connection_->reusable = false;
      bool got_head = false;
      auto result = std::visit(
          [&](auto& stream) {
            return exchange(stream, *connection_, *url, request, on_body, got_head);
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
  asio::awaitable<Result<std::unique_ptr<Connection>>> connect(const Url& url) {
    tcp::resolver resolver(executor_);
    auto [resolve_ec, endpoints] =
        co_await resolver.async_resolve(url.host, std::to_string(url.port), no_throw);
    if (resolve_ec) co_return std::unexpected(network_error(resolve_ec, "resolve", url));
    auto connection =
        url.tls()
            ? std::make_unique<Connection>(
                  Connection{url.origin(), beast::ssl_stream<beast::tcp_stream>(executor_, tls_)})
            : std::make_unique<Connection>(Connection{url.origin(), beast::tcp_stream(executor_)});
    beast::tcp_stream& tcp_layer = connection->tcp();
    tcp_layer.expires_after(options_.timeouts.connect);
    auto [connect_ec, endpoint] = co_await tcp_layer.async_connect(endpoints, no_throw);
    if (connect_ec) co_return std::unexpected(network_error(connect_ec, "connect", url));
    tcp_layer.socket().set_option(tcp::no_delay(true));
    if (auto* tls = std::get_if<beast::ssl_stream<beast::tcp_stream>>(&connection->stream)) {
      // SNI, then verify the chain and that the certificate names this host.
      // SSL_set_tlsext_host_name is a macro with an old-style cast; this is its body.
      if (SSL_ctrl(tls->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                   const_cast<char*>(url.host.c_str())) != 1) {
        co_return fail(ErrorCode::protocol, fmt::format("TLS: cannot set SNI for {}", url.host));
      }
      tls->set_verify_mode(ssl::verify_peer);
      tls->set_verify_callback(ssl::host_name_verification(url.host));
      tcp_layer.expires_after(options_.timeouts.connect);
      auto [handshake_ec] = co_await tls->async_handshake(ssl::stream_base::client, no_throw);
      if (handshake_ec)
        co_return std::unexpected(network_error(handshake_ec, "TLS handshake with", url));
    }
    co_return connection;
  }

  template <class Stream>
  asio::awaitable<Result<HttpResponse>> exchange(Stream& stream, Connection& connection,
                                                 const Url& url, const HttpRequest& request,
                                                 const BodyHandler& on_body, bool& got_head) {
    beast::tcp_stream& tcp_layer = connection.tcp();
    http::request<http::string_body> message{http::string_to_verb(request.method), url.target, 11};
    message.set(http::field::host, url.host_header());
    message.set(http::field::user_agent, options_.user_agent);
    for (const auto& header : request.headers) message.set(header.name, header.value);
    message.body() = request.body;
    message.keep_alive(true);
    message.prepare_payload();

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
    bool stream_body = on_body && response.status >= 200 && response.status < 300;
    std::array<char, read_chunk_bytes> chunk{};
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      tcp_layer.expires_after(options_.timeouts.idle);
      auto [read_ec, read_bytes] =
          co_await http::async_read_some(stream, connection.buffer, parser, no_throw);
      if (read_ec && read_ec != http::error::need_buffer) {
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
  ssl::context tls_;
  std::unique_ptr<Connection> connection_;
};

Result<ssl::context> make_tls_context(const HttpClientOptions& options) {
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
  try {
    AVA_TRY(auto tls, make_tls_context(options));
    return std::make_unique<BeastHttpClient>(std::move(executor), std::move(options),
                                             std::move(tls));
  } catch (const boost::system::system_error& e) {
    return fail(ErrorCode::io, fmt::format("TLS setup failed: {}", e.what()));
  }
}

}  // namespace ava::transport
