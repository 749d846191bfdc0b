#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_hub.hpp"
#include "ava/capabilities/stored_credentials.hpp"

namespace ava::capabilities {

namespace asio = boost::asio;

asio::awaitable<Result<McpProbe>> probe_server(asio::any_io_executor executor, McpServerEntry entry,
                                               base::Home home, std::chrono::milliseconds timeout) {
  auto config = server_config(executor, entry, home, std::filesystem::path(),
                              std::make_shared<StoredCredentials>(home));
  config.session.initialize_timeout = timeout;
  auto connection = mcp::ServerConnection::create(executor, std::move(config));
  McpProbe probe;
  std::optional<Error> failure;
  auto session = co_await connection->session();
  if (session) {
    probe.server = (*session)->server();
    auto tools = co_await connection->tools();
    if (tools) {
      probe.tools = std::move(*tools);
    } else {
      failure = std::move(tools).error();
    }
  } else {
    failure = std::move(session).error();
  }
  co_await connection->close();
  if (failure) co_return std::unexpected(std::move(*failure));
  if (auto store = CapabilitiesStore::open(home)) {
    (void)store->cache_tools(entry.name, fingerprint(entry), tools_to_json(probe.tools));
  }
  co_return probe;
}

protocol::McpServerTest probe_view(const McpProbe& probe) {
  protocol::McpServerTest out{.server_name = probe.server.name,
                              .server_version = probe.server.version,
                              .protocol_version = probe.server.protocol_version,
                              .tools = {}};
  for (const auto& tool : probe.tools) {
    out.tools.push_back({.name = tool.name, .description = tool.description});
  }
  return out;
}

}  // namespace ava::capabilities
