#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "ava/base/error.hpp"

namespace ava::remote {

// OAuth sign-ins of a machine's MCP servers, when the browser runs on the
// client's machine: this loopback listener there takes the redirect
// (GET /callback?code=...&state=...&iss=...), hands the query to the
// machine's backend through the tunnel (`deliver`, POST
// /api/mcp/sign-in-callback with the token) and shows the browser the
// outcome. The backend sends sign-ins started through the tunnel here once
// the tunnel is registered with this port (POST /api/tunnel-ports
// redirectPort). No public callback URL is needed.
class SignInRelay {
 public:
  // The backend's answer to a delivered query: its HTTP status (204 taken,
  // 409 no sign-in waits for it), or an error when it could not be asked.
  using Deliver = std::function<boost::asio::awaitable<Result<int>>(std::string query)>;

  static Result<std::unique_ptr<SignInRelay>> listen(boost::asio::any_io_executor executor,
                                                     Deliver deliver);
  ~SignInRelay();
  SignInRelay(const SignInRelay&) = delete;
  SignInRelay& operator=(const SignInRelay&) = delete;

  std::uint16_t port() const;
  // Serves redirects until close().
  boost::asio::awaitable<void> run();
  void close();

  struct State;

 private:
  explicit SignInRelay(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace ava::remote
