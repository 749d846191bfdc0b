#include "support/fake_provider.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

namespace ava::test {

namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
constexpr auto no_throw = asio::as_tuple(asio::use_awaitable);

std::string lower(std::string text) {
  std::ranges::transform(text, text.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 529: return "Overloaded";
    default: return "Status";
  }
}

asio::awaitable<void> sleep_for(std::chrono::milliseconds duration) {
  if (duration.count() <= 0) co_return;
  asio::steady_timer timer(co_await asio::this_coro::executor, duration);
  co_await timer.async_wait(no_throw);
}

// Until the peer closes the connection (it sends nothing more on it), or
// `limit` passes.
template <class Stream>
asio::awaitable<void> wait_for_close(Stream& stream, std::chrono::milliseconds limit) {
  using namespace asio::experimental::awaitable_operators;
  asio::steady_timer timer(co_await asio::this_coro::executor, limit);
  std::array<char, 256> sink{};
  try {
    co_await (stream.async_read_some(asio::buffer(sink), asio::use_awaitable) ||
              timer.async_wait(asio::use_awaitable));
  } catch (const boost::system::system_error&) {
    // closed: what we waited for
  }
}

class Server final : public FakeProviderServer {
 public:
  explicit Server(Options options)
      : options_(std::move(options)), tls_(ssl::context::tls_server), acceptor_(io_) {
    if (options_.tls) {
      tls_.use_certificate_chain_file(options_.certificate_chain.string());
      tls_.use_private_key_file(options_.private_key.string(), ssl::context::pem);
    }
    tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    asio::co_spawn(io_, accept_loop(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }

  ~Server() override {
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint16_t port() const override { return port_; }
  std::string base_url() const override {
    return options_.tls ? fmt::format("https://localhost:{}", port_)
                        : fmt::format("http://127.0.0.1:{}", port_);
  }
  void enqueue(FakeReply reply) override {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(reply));
  }
  void set_fallback(std::function<FakeReply(const RecordedRequest&)> fallback) override {
    std::lock_guard lock(mutex_);
    fallback_ = std::move(fallback);
  }
  std::vector<RecordedRequest> requests() const override {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::size_t connections_accepted() const override {
    std::lock_guard lock(mutex_);
    return connections_;
  }

 private:
  asio::awaitable<void> accept_loop() {
    while (true) {
      auto [ec, socket] = co_await acceptor_.async_accept(no_throw);
      if (ec) co_return;
      // Without it the head and each chunk wait on delayed ACKs (~40 ms).
      socket.set_option(tcp::no_delay(true));
      {
        std::lock_guard lock(mutex_);
        ++connections_;
      }
      if (options_.tls) {
        asio::co_spawn(io_, serve_tls(std::move(socket)), asio::detached);
      } else {
        asio::co_spawn(io_, serve(std::move(socket)), asio::detached);
      }
    }
  }

  asio::awaitable<void> serve_tls(tcp::socket socket) {
    ssl::stream<tcp::socket> stream(std::move(socket), tls_);
    auto [ec] = co_await stream.async_handshake(ssl::stream_base::server, no_throw);
    if (ec) co_return;  // e.g. the client refused our certificate
    co_await serve(std::move(stream));
  }

  template <class Stream>
  asio::awaitable<void> serve(Stream stream) {
    asio::streambuf buffer;
    while (true) {
      auto [ec, head_size] = co_await asio::async_read_until(stream, buffer, "\r\n\r\n", no_throw);
      if (ec) co_return;
      RecordedRequest request;
      std::string head(asio::buffers_begin(buffer.data()),
                       asio::buffers_begin(buffer.data()) + static_cast<std::ptrdiff_t>(head_size));
      buffer.consume(head_size);
      std::size_t content_length = parse_head(head, request);
      if (buffer.size() < content_length) {
        auto [body_ec, body_read] = co_await asio::async_read(
            stream, buffer, asio::transfer_exactly(content_length - buffer.size()), no_throw);
        if (body_ec) co_return;
      }
      request.body.assign(
          asio::buffers_begin(buffer.data()),
          asio::buffers_begin(buffer.data()) + static_cast<std::ptrdiff_t>(content_length));
      buffer.consume(content_length);
      FakeReply reply = next_reply(request);
      if (!co_await respond(stream, reply)) co_return;
    }
  }

  static std::size_t parse_head(const std::string& head, RecordedRequest& request) {
    std::size_t line_end = head.find("\r\n");
    std::string request_line = head.substr(0, line_end);
    auto first_space = request_line.find(' ');
    auto second_space = request_line.find(' ', first_space + 1);
    request.method = request_line.substr(0, first_space);
    request.target = request_line.substr(first_space + 1, second_space - first_space - 1);
    std::size_t content_length = 0;
    std::size_t at = line_end + 2;
    while (at < head.size()) {
      std::size_t end = head.find("\r\n", at);
      if (end == std::string::npos || end == at) break;
      std::string line = head.substr(at, end - at);
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = lower(line.substr(0, colon));
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        if (name == "content-length") content_length = std::stoul(value);
        request.headers.emplace_back(name, value);
      }
      at = end + 2;
    }
    return content_length;
  }

  FakeReply next_reply(const RecordedRequest& request) {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    if (!queue_.empty()) {
      FakeReply reply = std::move(queue_.front());
      queue_.erase(queue_.begin());
      return reply;
    }
    if (fallback_) return fallback_(request);
    return http_error_reply(500);
  }

  // Returns whether the connection can serve another request.
  template <class Stream>
  asio::awaitable<bool> respond(Stream& stream, const FakeReply& reply) {
    co_await sleep_for(reply.first_byte_delay);
    std::string head =
        fmt::format("HTTP/1.1 {} {}\r\ncontent-type: {}\r\ntransfer-encoding: chunked\r\n",
                    reply.status, reason_phrase(reply.status), reply.content_type);
    for (const auto& [name, value] : reply.headers) head += fmt::format("{}: {}\r\n", name, value);
    head += "\r\n";
    auto [head_ec, head_written] = co_await asio::async_write(stream, asio::buffer(head), no_throw);
    if (head_ec) co_return false;
    std::size_t sent = 0;
    for (std::size_t i = 0; i < reply.chunks.size(); ++i) {
      if (reply.stall_after_chunks && i == *reply.stall_after_chunks) {
        // Wait until the client closes (the read then ends), never longer than a minute.
        co_await wait_for_close(stream, std::chrono::seconds(60));
        co_return false;
      }
      if (i > 0) co_await sleep_for(reply.chunk_delay);
      std::string data = reply.chunks[i];
      bool cut = false;
      if (reply.cut_after_bytes && sent + data.size() >= *reply.cut_after_bytes) {
        data.resize(*reply.cut_after_bytes - sent);
        cut = true;
      }
      if (!data.empty()) {
        std::string framed = fmt::format("{:x}\r\n{}\r\n", data.size(), data);
        auto [ec, written] = co_await asio::async_write(stream, asio::buffer(framed), no_throw);
        if (ec) co_return false;
      }
      sent += data.size();
      if (cut) co_return false;  // drop the connection mid-stream
    }
    if (reply.cut_after_bytes) co_return false;
    auto [end_ec, end_written] =
        co_await asio::async_write(stream, asio::buffer(std::string_view("0\r\n\r\n")), no_throw);
    co_return !end_ec;
  }

  Options options_;
  asio::io_context io_;
  ssl::context tls_;
  tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<FakeReply> queue_;
  std::function<FakeReply(const RecordedRequest&)> fallback_;
  std::vector<RecordedRequest> requests_;
  std::size_t connections_ = 0;
};

}  // namespace

std::string RecordedRequest::header(const std::string& lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return {};
}

std::unique_ptr<FakeProviderServer> FakeProviderServer::start(Options options) {
  try {
    return std::make_unique<Server>(std::move(options));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("fake provider cannot start: {}", e.what()));
  }
}

std::vector<std::string> chunks_per_event(const std::string& body) {
  std::vector<std::string> chunks;
  std::size_t at = 0;
  while (at < body.size()) {
    std::size_t end = body.find("\n\n", at);
    end = end == std::string::npos ? body.size() : end + 2;
    chunks.push_back(body.substr(at, end - at));
    at = end;
  }
  return chunks;
}

FakeReply http_error_reply(int status, std::optional<int> retry_after_seconds) {
  std::string type = status == 429   ? "rate_limit_error"
                     : status == 529 ? "overloaded_error"
                                     : "api_error";
  nlohmann::json body{{"type", "error"},
                      {"error", {{"type", type}, {"message", fmt::format("fake {}", status)}}}};
  FakeReply reply{.status = status, .content_type = "application/json", .chunks = {body.dump()}};
  if (retry_after_seconds)
    reply.headers.emplace_back("retry-after", std::to_string(*retry_after_seconds));
  return reply;
}

}  // namespace ava::test
