#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"
#include "ava/base/limits.hpp"
#include "ava/transport/proxy.hpp"

namespace ava::transport {

struct HttpHeader {
  std::string name;
  std::string value;  // may hold a credential: never logged
};

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<HttpHeader> headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::vector<HttpHeader> headers;
  // Filled for non-2xx responses and when no body handler was given;
  // bounded by HttpClientOptions::max_body_bytes.
  std::string body;
  // First header of that name (case-insensitive), or empty.
  std::string header(std::string_view name) const;
};

struct HttpTimeouts {
  std::chrono::milliseconds connect{10'000};      // DNS + TCP + TLS handshake
  std::chrono::milliseconds first_byte{120'000};  // request sent -> response head
  std::chrono::milliseconds idle{120'000};        // between body reads (streams stall here)
  // From sending the request to the body's end, however steadily it drips
  // (a byte before every idle timeout would otherwise go on for ever).
  // 0: none, for event streams that are meant to stay open.
  std::chrono::milliseconds total{0};
};

struct HttpClientOptions {
  HttpTimeouts timeouts;
  // Extra trust for TLS: a PEM bundle. Without it, SSL_CERT_FILE (when set)
  // and the system store are used.
  std::optional<std::filesystem::path> ca_file;
  std::size_t max_body_bytes = base::Limits::defaults().http_response_body;
  std::size_t max_header_bytes = base::Limits::defaults().http_header_bytes;
  std::string user_agent = "ava";
  // Proxies for this client. nullopt: read HTTPS_PROXY, HTTP_PROXY and
  // NO_PROXY from the process environment at create(); an empty config
  // connects directly.
  std::optional<ProxyConfig> proxy;
};

// Receives a 2xx body as it arrives. Returning an error stops the transfer
// and closes the connection.
using BodyHandler = std::function<Result<void>(std::string_view chunk)>;

// Sees the response head (status and headers, body empty) before the first
// body byte, so a consumer can pick a decoder from Content-Type or read a
// session header before the body's messages. Returning an error stops the
// transfer and closes the connection.
using HeadHandler = std::function<Result<void>(const HttpResponse& head)>;

// HTTP/1.1 client over Beast and OpenSSL: certificate and host name
// verification, SNI, one kept-alive connection per origin, timeouts per
// phase, bounded sizes, HTTP proxies (a CONNECT tunnel for https://, the
// absolute-form request for http://). Cancel a send() with Asio
// per-operation cancellation (a cancellation slot bound to the co_spawn /
// co_await); the result is then ErrorCode::cancelled and the connection is
// dropped.
//
// Errors: timeout (phase named), cancelled, unavailable (DNS, refused),
// protocol (bad HTTP, TLS or certificate failure), io (reset, closed
// mid-response), limit_exceeded, permission_denied (a proxy wants
// credentials), unsupported (an https:// proxy).
class HttpClient {
 public:
  static Result<std::unique_ptr<HttpClient>> create(boost::asio::any_io_executor executor,
                                                    HttpClientOptions options = {});
  virtual ~HttpClient() = default;
  HttpClient() = default;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // One request at a time per client. With on_body, a 2xx body streams to it
  // and response.body stays empty.
  virtual boost::asio::awaitable<Result<HttpResponse>> send(const HttpRequest& request,
                                                            const BodyHandler& on_body) = 0;
  // The same, with the head shown to on_head first (when set).
  virtual boost::asio::awaitable<Result<HttpResponse>> send(const HttpRequest& request,
                                                            const HeadHandler& on_head,
                                                            const BodyHandler& on_body) = 0;
  // Drops the kept-alive connection.
  virtual void close() = 0;
};

}  // namespace ava::transport
