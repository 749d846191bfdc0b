#pragma once

// A tiny HTTP proxy for tests, on a loopback port and its own thread. It
// answers CONNECT with a tunnel and forwards absolute-form requests, in both
// cases to 127.0.0.1 and the port the request names, so nothing leaves the
// machine. It records every request head it receives.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace ava::test {

class ConnectProxy {
 public:
  // refuse_status != 0: every request gets that status instead of service.
  explicit ConnectProxy(int refuse_status = 0) : refuse_status_(refuse_status), acceptor_(io_) {
    tcp::endpoint endpoint(boost::asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    boost::asio::co_spawn(io_, accept_loop(), boost::asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~ConnectProxy() {
    io_.stop();
    thread_.join();
  }
  ConnectProxy(const ConnectProxy&) = delete;
  ConnectProxy& operator=(const ConnectProxy&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::uint16_t port() const { return port_; }
  std::vector<std::string> heads() const {
    std::lock_guard lock(mutex_);
    return heads_;
  }

 private:
  using tcp = boost::asio::ip::tcp;
  static constexpr auto no_throw = boost::asio::as_tuple(boost::asio::use_awaitable);

  boost::asio::awaitable<void> accept_loop() {
    while (true) {
      auto [ec, socket] = co_await acceptor_.async_accept(no_throw);
      if (ec) co_return;
      boost::asio::co_spawn(io_, serve(std::make_shared<tcp::socket>(std::move(socket))),
                            boost::asio::detached);
    }
  }

  boost::asio::awaitable<void> serve(std::shared_ptr<tcp::socket> client) {
    boost::asio::streambuf buffer;
    auto [ec, head_size] =
        co_await boost::asio::async_read_until(*client, buffer, "\r\n\r\n", no_throw);
    if (ec) co_return;
    std::string head(
        boost::asio::buffers_begin(buffer.data()),
        boost::asio::buffers_begin(buffer.data()) + static_cast<std::ptrdiff_t>(head_size));
    buffer.consume(head_size);
    {
      std::lock_guard lock(mutex_);
      heads_.push_back(head);
    }
    if (refuse_status_ != 0) {
      std::string reply = "HTTP/1.1 " + std::to_string(refuse_status_) +
                          " Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      co_await boost::asio::async_write(*client, boost::asio::buffer(reply), no_throw);
      co_return;
    }
    // "CONNECT host:port HTTP/1.1" or "GET http://host:port/path HTTP/1.1".
    std::string target = head.substr(head.find(' ') + 1);
    target = target.substr(0, target.find(' '));
    bool tunnel = head.starts_with("CONNECT ");
    std::string authority = tunnel ? target : target.substr(target.find("://") + 3);
    authority = authority.substr(0, authority.find('/'));
    auto port = static_cast<std::uint16_t>(std::stoi(authority.substr(authority.rfind(':') + 1)));
    auto upstream = std::make_shared<tcp::socket>(io_);
    auto [connect_ec] = co_await upstream->async_connect(
        tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port), no_throw);
    if (connect_ec) co_return;
    std::string first = tunnel ? std::string("HTTP/1.1 200 Connection established\r\n\r\n") : head;
    auto [write_ec, written] = co_await boost::asio::async_write(
        tunnel ? *client : *upstream, boost::asio::buffer(first), no_throw);
    if (write_ec) co_return;
    if (buffer.size() > 0) co_await boost::asio::async_write(*upstream, buffer.data(), no_throw);
    boost::asio::co_spawn(io_, pipe(client, upstream), boost::asio::detached);
    co_await pipe(upstream, client);
  }

  static boost::asio::awaitable<void> pipe(std::shared_ptr<tcp::socket> from,
                                           std::shared_ptr<tcp::socket> to) {
    char data[16384];
    while (true) {
      auto [read_ec, n] = co_await from->async_read_some(boost::asio::buffer(data), no_throw);
      if (read_ec) break;
      auto [write_ec, w] =
          co_await boost::asio::async_write(*to, boost::asio::buffer(data, n), no_throw);
      if (write_ec) break;
    }
    boost::system::error_code ignored;
    to->shutdown(tcp::socket::shutdown_send, ignored);
  }

  int refuse_status_;
  boost::asio::io_context io_;
  tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<std::string> heads_;
};

}  // namespace ava::test
