#pragma once

#include <cstddef>
#include <memory>

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "ava/base/error.hpp"
#include "ava/httpd/http_server.hpp"

namespace ava::httpd {

// Answers the upgrade request on `stream` (its head already read by the
// server) and returns the WebSocket over it. The stream must outlive the
// socket; http_server.cpp guarantees that by keeping the connection until
// the route's handler returns.
boost::asio::awaitable<Result<std::unique_ptr<WebSocket>>> accept_websocket(
    boost::beast::tcp_stream& stream, const HttpRequest& request, unsigned version,
    std::size_t max_message);

}  // namespace ava::httpd
