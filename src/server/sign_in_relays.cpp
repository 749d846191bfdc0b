// Sign-in redirects for clients behind SSH tunnels (api.hpp).
#include <algorithm>
#include <string>

#include "server/api.hpp"

namespace ava::server {

void SignInRelays::set(std::uint16_t tunnel_port, std::uint16_t redirect_port) {
  auto relay = std::make_shared<oauth::RedirectRelay>(
      "http://127.0.0.1:" + std::to_string(redirect_port) + "/callback");
  std::lock_guard lock(mutex_);
  std::erase_if(relays_, [tunnel_port](const auto& entry) { return entry.first == tunnel_port; });
  relays_.emplace_back(tunnel_port, std::move(relay));
  while (relays_.size() > max_relays) relays_.pop_front();
}

std::shared_ptr<oauth::RedirectRelay> SignInRelays::for_tunnel(std::uint16_t tunnel_port) const {
  std::lock_guard lock(mutex_);
  for (const auto& [port, relay] : relays_) {
    if (port == tunnel_port) return relay;
  }
  return nullptr;
}

bool SignInRelays::deliver(std::string_view query) const {
  std::deque<std::shared_ptr<oauth::RedirectRelay>> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto& entry : relays_) all.push_back(entry.second);
  }
  return std::ranges::any_of(all, [query](const auto& relay) { return relay->deliver(query); });
}

}  // namespace ava::server
