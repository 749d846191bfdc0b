#include "server/local_servers.hpp"

#include <chrono>

#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/llm/model_list.hpp"

namespace ava::server {

namespace asio = boost::asio;

namespace {

constexpr auto look_every = std::chrono::seconds(15);

// The detected server as the catalog message shows it; one that went away
// is named with configured false.
protocol::ProviderInfo announced(const llm::ProviderModels* found, const std::string& before) {
  if (found == nullptr) return {.name = before, .configured = false};
  return {.name = found->source.provider,
          .kind = std::string(llm::to_string(found->source.kind)),
          .base_url = found->source.base_url,
          .model = found->models.front(),
          .configured = true};
}

}  // namespace

asio::awaitable<void> watch_local_servers(SettingsSource& settings, StatusFeed& status,
                                          asio::steady_timer& timer) {
  auto executor = co_await asio::this_coro::executor;
  std::string in_use;  // the detected server new conversations use, if any
  for (;;) {
    if (settings.needs_setup()) {
      const auto snapshot = settings.current();
      auto answers = co_await llm::query_local_servers(executor, *snapshot);
      const auto* found = llm::first_serving(answers);
      // Nothing serving: named after a server running without a model, if
      // any, so the panels learn of it too.
      std::string named = in_use;
      for (const auto& answer : answers) {
        if (found == nullptr && answer.reachable) {
          named = answer.source.provider;
          break;
        }
      }
      const auto info = announced(found, named);
      const bool serving = found != nullptr;
      if (settings.set_detected(std::move(answers))) {
        if (serving) {
          spdlog::info("no provider is configured: new conversations use {} at {} with {}",
                       info.name, *info.base_url, *info.model);
        }
        in_use = serving ? info.name : std::string();
        if (!info.name.empty())
          status.publish(protocol::CatalogMessage{.action = "provider", .provider = info});
      }
    } else if (!settings.detected().empty()) {
      (void)settings.set_detected({});  // a configured provider takes over
    }
    timer.expires_after(look_every);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
  }
}

}  // namespace ava::server
