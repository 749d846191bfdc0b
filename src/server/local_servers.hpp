#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include "ava/server/settings_source.hpp"
#include "server/conversation_host.hpp"

namespace ava::server {

// While no provider is configured, looks for local model servers (Ollama,
// LM Studio, llama.cpp) now and every 15 seconds, so one started after the
// backend becomes the default for new conversations (SettingsSource) and the
// first-run panels offer it. A change goes out on the status stream as a
// catalog "provider" message. Ends when `timer` is cancelled.
boost::asio::awaitable<void> watch_local_servers(SettingsSource& settings, StatusFeed& status,
                                                 boost::asio::steady_timer& timer);

}  // namespace ava::server
