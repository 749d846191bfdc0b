#include "ava/httpd/login_gate.hpp"

#include <algorithm>

#include "ava/base/constant_time.hpp"
#include "ava/machine/runtime_files.hpp"

namespace ava::httpd {

Result<std::string> LoginGate::issue_code(bool lasting) {
  AVA_TRY(std::string code, machine::new_bearer_token());
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  std::erase_if(codes_, [&](const auto& entry) { return entry.second && *entry.second <= now; });
  if (codes_.size() >= max_codes) {
    return fail(ErrorCode::limit_exceeded,
                "too many unused login codes; try again in a few minutes");
  }
  codes_.emplace(code, lasting ? std::nullopt : std::optional(now + code_lifetime));
  return code;
}

std::optional<std::string> LoginGate::redeem(std::string_view code) {
  auto session = machine::new_bearer_token();
  if (!session) return std::nullopt;
  std::lock_guard lock(mutex_);
  // Codes are random and single use: a map lookup reveals nothing useful by
  // its timing, and a guess would have to match 256 random bits.
  auto it = codes_.find(std::string(code));
  if (it == codes_.end()) return std::nullopt;
  const bool expired = it->second && *it->second <= Clock::now();
  codes_.erase(it);
  if (expired) return std::nullopt;
  sessions_.push_back(*session);
  if (sessions_.size() > max_sessions) sessions_.pop_front();
  return *session;
}

bool LoginGate::admits(std::string_view cookie_header) const {
  const std::string_view given = cookie_value(cookie_header, cookie_name());
  if (given.empty()) return false;
  std::lock_guard lock(mutex_);
  bool found = false;
  for (const auto& session : sessions_) found |= base::constant_time_equal(given, session);
  return found;
}

std::string LoginGate::set_cookie(const std::string& session) const {
  return cookie_name() + "=" + session + "; Path=/; HttpOnly; SameSite=Strict";
}

std::string LoginGate::login_url(const std::string& code) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/?login=" + code;
}

void LoginGate::add_tunnel_port(std::uint16_t port) {
  std::lock_guard lock(mutex_);
  std::erase(tunnel_ports_, port);
  tunnel_ports_.push_back(port);
  if (tunnel_ports_.size() > max_tunnel_ports) tunnel_ports_.pop_front();
}

bool LoginGate::is_tunnel_port(std::uint16_t port) const {
  std::lock_guard lock(mutex_);
  return std::find(tunnel_ports_.begin(), tunnel_ports_.end(), port) != tunnel_ports_.end();
}

std::string sign_in_page(std::string_view why) {
  return std::string(R"(<!doctype html>
<html><head><meta charset="utf-8"><title>Ava: sign in</title></head>
<body><h1>Ava</h1><p>)") +
         std::string(why) + R"( Open the link that <code>ava --serve</code> printed when it
started, or run <code>ava backend open</code> for a new one.</p></body></html>
)";
}

std::string_view cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const std::size_t end = std::min(header.find(';'), header.size());
    std::string_view pair = header.substr(0, end);
    header.remove_prefix(std::min(end + 1, header.size()));
    while (!pair.empty() && (pair.front() == ' ' || pair.front() == '\t')) pair.remove_prefix(1);
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) {
      std::string_view value = pair.substr(eq + 1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      return value;
    }
  }
  return {};
}

}  // namespace ava::httpd
