#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ava/base/error.hpp"

namespace ava::httpd {

// Browser logins, as notebook servers do them: the server hands out a
// one-time code inside a URL (`/?login=CODE`), the browser trades it for a
// session cookie (HttpOnly, SameSite=Strict), and the cookie is the secret
// on every later request. Sessions live as long as the server process.
class LoginGate {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t max_sessions = 256;
  static constexpr std::size_t max_codes = 64;
  static constexpr std::chrono::minutes code_lifetime{10};

  // The cookie's name carries the port: browsers share cookies between the
  // ports of one host, and a backend and `ava --serve` may both be open.
  void set_port(std::uint16_t port) { port_ = port; }
  std::string cookie_name() const { return "ava_" + std::to_string(port_); }

  // A new code: single use, and valid for code_lifetime unless `lasting`
  // (the one a server prints when it starts, which may be opened much later).
  Result<std::string> issue_code(bool lasting = false);
  // A new session for a valid code (the code is spent); nullopt otherwise.
  std::optional<std::string> redeem(std::string_view code);
  // Whether the request's Cookie header holds a live session of this server.
  bool admits(std::string_view cookie_header) const;
  // The Set-Cookie value for a session.
  std::string set_cookie(const std::string& session) const;
  // "http://127.0.0.1:PORT/?login=CODE".
  std::string login_url(const std::string& code) const;

  // The local ports of SSH tunnels to this server, registered by a client
  // holding the token (POST /api/tunnel-ports): a browser that reaches the
  // server through one names that port in Host and Origin. The newest
  // max_tunnel_ports are kept.
  static constexpr std::size_t max_tunnel_ports = 16;
  void add_tunnel_port(std::uint16_t port);
  bool is_tunnel_port(std::uint16_t port) const;

 private:
  mutable std::mutex mutex_;
  std::uint16_t port_ = 0;
  std::unordered_map<std::string, std::optional<Clock::time_point>> codes_;  // code -> expiry
  std::deque<std::string> sessions_;  // oldest first; the oldest goes past max_sessions
  std::deque<std::uint16_t> tunnel_ports_;
};

// The page a browser gets instead of the app while it holds no session:
// `why` in a sentence, then how to get a login link.
std::string sign_in_page(std::string_view why);

// The value of cookie `name` in a Cookie header ("a=1; b=2"); empty if absent.
std::string_view cookie_value(std::string_view header, std::string_view name);

}  // namespace ava::httpd
