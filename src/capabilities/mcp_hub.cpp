#include "ava/capabilities/mcp_hub.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/capabilities/capabilities_store.hpp"
#include "ava/capabilities/mcp_login.hpp"
#include "ava/capabilities/stored_credentials.hpp"
#include "ava/mcp/http_transport.hpp"
#include "ava/mcp/stdio_transport.hpp"

namespace ava::capabilities {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using mcp::ToolInfo;
using nlohmann::json;

mcp::ServerConfig server_config(const asio::any_io_executor& executor, const McpServerEntry& entry,
                                const base::Home& home, const fs::path& default_cwd,
                                std::shared_ptr<oauth::CredentialStore> credentials) {
  mcp::ServerConfig config;
  config.name = entry.name;
  if (entry.transport == "http") {
    mcp::HttpServer server;
    server.url = entry.url;
    for (const auto& [name, value] : entry.headers) server.headers.push_back({name, value});
    if (credentials && !has_own_authorization(entry)) {
      oauth::OAuthConfig oauth = oauth_config(entry, std::move(credentials));
      oauth.wait_for_login = false;
      oauth.sign_in_hint = "run `ava mcp login " + entry.name + "`, then try again";
      oauth.open_url = [](std::string) -> asio::awaitable<Result<void>> {
        co_return fail(ErrorCode::unsupported, "no browser here");
      };
      // One per connection, kept across its restarts.
      server.oauth = oauth::OAuthClient::create(executor, std::move(oauth));
    }
    config.make_transport = [server] { return mcp::make_http_transport(server); };
    return config;
  }
  mcp::StdioServer server;
  server.command = entry.command;
  server.args = entry.args;
  server.env = entry.env;
  server.cwd = entry.cwd.empty() ? default_cwd : fs::path(entry.cwd);
  // workspace-write: the folder it runs in is the one it may change.
  std::error_code ec;
  server.sandbox = sandbox_for(entry, server.cwd.empty() ? fs::current_path(ec) : server.cwd);
  if (auto logs = home.ensure_dir("logs"))
    server.stderr_log = *logs / ("mcp-" + entry.name + ".log");
  config.make_transport = [server] { return mcp::make_stdio_transport(server); };
  return config;
}

json tools_to_json(const std::vector<ToolInfo>& tools) {
  json list = json::array();
  for (const auto& info : tools) {
    list.push_back({{"name", info.name},
                    {"title", info.title},
                    {"description", info.description},
                    {"inputSchema", info.input_schema},
                    {"outputSchema", info.output_schema},
                    {"annotations", info.annotations}});
  }
  return list;
}

std::vector<ToolInfo> tools_from_json(const json& list) {
  std::vector<ToolInfo> tools;
  if (!list.is_array()) return tools;
  for (const auto& item : list) {
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) continue;
    ToolInfo info;
    info.name = item["name"].get<std::string>();
    if (item.contains("title") && item["title"].is_string()) info.title = item["title"];
    if (item.contains("description") && item["description"].is_string())
      info.description = item["description"];
    if (item.contains("inputSchema") && item["inputSchema"].is_object())
      info.input_schema = item["inputSchema"];
    info.output_schema = item.value("outputSchema", json());
    info.annotations = item.value("annotations", json());
    tools.push_back(std::move(info));
  }
  return tools;
}

struct McpHub::Server {
  explicit Server(const asio::any_io_executor& executor) : strand(asio::make_strand(executor)) {}
  // The listing task runs here; close() cancels it from here, so a server
  // stuck in initialize does not hold the process up for its timeout.
  asio::strand<asio::any_io_executor> strand;
  asio::cancellation_signal cancel;
  McpServerEntry entry;
  std::string print;
  std::shared_ptr<mcp::ServerConnection> connection;
  std::optional<std::vector<ToolInfo>> tools;  // as listed in this process
  std::uint64_t listed_generation = 0;         // the connection's tools_generation() then
  std::string error;                           // the last listing failure
  bool listing = false;
  std::vector<std::shared_ptr<Gather>> waiting;
};

// Waits for a number of completions or a deadline, whichever is first. The
// count and the timer live on one strand, so a completion that comes before
// the wait starts is not lost.
struct McpHub::Gather : std::enable_shared_from_this<Gather> {
  explicit Gather(const asio::any_io_executor& executor)
      : strand(asio::make_strand(executor)), timer(strand) {}
  void done() {
    asio::post(strand, [self = shared_from_this()] {
      if (--self->remaining == 0) self->timer.cancel();
    });
  }
  static asio::awaitable<void> wait_on_strand(std::shared_ptr<Gather> self,
                                              std::chrono::milliseconds wait) {
    co_await asio::this_coro::throw_if_cancelled(false);
    if (self->remaining <= 0) co_return;
    self->timer.expires_after(wait);
    co_await self->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  asio::awaitable<void> wait(std::chrono::milliseconds limit) {
    co_await asio::co_spawn(strand, wait_on_strand(shared_from_this(), limit), asio::use_awaitable);
  }

  asio::strand<asio::any_io_executor> strand;
  asio::steady_timer timer;
  int remaining = 0;
};

std::shared_ptr<McpHub> McpHub::create(Options options) {
  return std::shared_ptr<McpHub>(new McpHub(std::move(options)));
}

McpHub::McpHub(Options options)
    : options_(std::move(options)),
      credentials_(std::make_shared<StoredCredentials>(options_.home)) {}

McpHub::~McpHub() = default;

std::vector<McpServerEntry> McpHub::enabled_entries(const fs::path* project,
                                                    std::vector<std::string>& notes) {
  Result<std::vector<McpServerEntry>> entries = std::vector<McpServerEntry>();
  if (options_.configured) {
    entries = *options_.configured;
  } else {
    // No store yet: nothing is configured. Not creating one here keeps
    // every `ava -p` in a fresh home from paying for SQLite's set-up.
    std::error_code missing;
    if (!fs::exists(CapabilitiesStore::file_of(options_.home), missing)) return {};
    auto store = CapabilitiesStore::open(options_.home);
    if (!store) {
      notes.push_back("MCP servers are not available: " + store.error().message);
      return {};
    }
    entries = store->servers();
  }
  if (!entries) {
    notes.push_back("MCP servers are not available: " + entries.error().message);
    return {};
  }
  std::vector<McpServerEntry> enabled;
  for (auto& entry : *entries) {
    bool wanted = project != nullptr ? enabled_for(entry, *project) : entry.enabled;
    if (project == nullptr) {
      for (const auto& [folder, on] : entry.projects) wanted = wanted || on;
    }
    if (wanted) enabled.push_back(std::move(entry));
  }
  return enabled;
}

std::shared_ptr<McpHub::Server> McpHub::server_for(const McpServerEntry& entry) {
  const std::string print = fingerprint(entry);
  auto it = servers_.find(entry.name);
  if (it != servers_.end() && it->second->print == print) return it->second;
  if (it != servers_.end()) retired_.push_back(it->second->connection);
  auto server = std::make_shared<Server>(options_.executor);
  server->entry = entry;
  server->print = print;
  auto config =
      server_config(options_.executor, entry, options_.home, options_.default_cwd, credentials_);
  // The connection drops its cached list on list_changed; the hub lists
  // again at once, so loaded agents get the new tools at their next step.
  config.session.on_notification = [hub = weak_from_this(), weak = std::weak_ptr<Server>(server)](
                                       const std::string& method, const json&) {
    if (method != "notifications/tools/list_changed") return;
    if (auto self = hub.lock()) self->tools_changed(weak);
  };
  server->connection = mcp::ServerConnection::create(options_.executor, std::move(config));
  servers_[entry.name] = server;
  return server;
}

void McpHub::start_listing(const std::shared_ptr<Server>& server) {
  if (server->listing || closed_) return;
  server->listing = true;
  auto self = shared_from_this();
  auto list = [](std::shared_ptr<McpHub> hub,
                 std::shared_ptr<Server> listed_server) -> asio::awaitable<void> {
    co_await asio::this_coro::throw_if_cancelled(false);
    const std::uint64_t generation = listed_server->connection->tools_generation();
    auto tools = co_await listed_server->connection->tools();
    hub->listed(listed_server, generation, std::move(tools));
  };
  asio::co_spawn(server->strand, list(self, server),
                 asio::bind_cancellation_slot(server->cancel.slot(), asio::detached));
}

void McpHub::listed(const std::shared_ptr<Server>& server, std::uint64_t generation,
                    Result<std::vector<ToolInfo>> tools) {
  std::vector<std::shared_ptr<Gather>> waiting;
  {
    std::lock_guard lock(mutex_);
    server->listing = false;
    if (tools) {
      const bool changed = !server->tools || tools_to_json(*server->tools) != tools_to_json(*tools);
      server->tools = *tools;
      server->listed_generation = generation;
      server->error.clear();
      if (changed) ++tools_version_;
      // A list_changed that came while listing: this list may be stale.
      if (server->connection->tools_generation() != generation) start_listing(server);
    } else {
      server->error = tools.error().message;
    }
    waiting.swap(server->waiting);
  }
  if (tools) {
    // For the next process, or this one's next conversation, while the server is slow.
    auto store = CapabilitiesStore::open(options_.home);
    auto cached = store
                      ? store->cache_tools(server->entry.name, server->print, tools_to_json(*tools))
                      : Result<void>(std::unexpected(store.error()));
    if (!cached)
      spdlog::warn("mcp {}: tool list not cached: {}", server->entry.name, cached.error().message);
  } else {
    spdlog::debug("mcp {}: cannot list tools: {}", server->entry.name, tools.error().message);
  }
  for (const auto& gather : waiting) gather->done();
}

void McpHub::tools_changed(const std::weak_ptr<Server>& weak) {
  auto server = weak.lock();
  if (!server) return;
  std::lock_guard lock(mutex_);
  // A replaced server's connection is kept for the agents holding its tools
  // until they refresh; only the current one is listed.
  auto it = servers_.find(server->entry.name);
  if (it == servers_.end() || it->second != server) return;
  start_listing(server);  // already listing: listed() sees the generation moved
}

asio::awaitable<void> McpHub::wait_listed(fs::path project, std::chrono::milliseconds wait) {
  std::vector<std::string> notes;
  const auto entries = enabled_entries(&project, notes);
  auto gather = std::make_shared<Gather>(options_.executor);
  {
    std::lock_guard lock(mutex_);
    if (closed_) co_return;
    for (const auto& entry : entries) {
      auto server = server_for(entry);
      if (server->tools) continue;
      start_listing(server);
      server->waiting.push_back(gather);
      ++gather->remaining;
    }
  }
  co_await gather->wait(wait);
}

McpHub::Offer McpHub::tools_for(const fs::path& project) {
  Offer offer;
  const auto entries = enabled_entries(&project, offer.notes);
  std::unique_ptr<CapabilitiesStore> store;
  std::lock_guard lock(mutex_);
  if (closed_) return offer;
  for (const auto& entry : entries) {
    auto server = server_for(entry);
    std::optional<std::vector<ToolInfo>> tools = server->tools;
    // The server said its tools changed: offer the old list now, the new one
    // to agents created after it is listed.
    if (tools && server->connection->tools_generation() != server->listed_generation)
      start_listing(server);
    if (!tools) {
      if (!store) {
        if (auto opened = CapabilitiesStore::open(options_.home))
          store = std::make_unique<CapabilitiesStore>(std::move(*opened));
      }
      auto cached = store ? store->cached_tools(entry.name, server->print)
                          : Result<std::optional<json>>(std::nullopt);
      if (cached && *cached) tools = tools_from_json(**cached);
      const std::string why = server->error.empty() ? "still starting" : server->error;
      offer.notes.push_back(
          tools
              ? "MCP server " + entry.name + " (" + why + "): its tools as last listed are offered"
              : "MCP server " + entry.name + " (" + why + "): no tools offered (none listed yet)");
      start_listing(server);
    }
    if (!tools) continue;
    for (auto& info : *tools)
      offer.tools.push_back(mcp::make_mcp_tool(server->connection, std::move(info)));
  }
  return offer;
}

void McpHub::warm() {
  std::vector<std::string> notes;
  const auto entries = enabled_entries(nullptr, notes);
  for (const auto& note : notes) spdlog::warn("{}", note);
  std::lock_guard lock(mutex_);
  for (const auto& entry : entries) start_listing(server_for(entry));
}

asio::awaitable<void> McpHub::close() {
  std::vector<std::shared_ptr<mcp::ServerConnection>> connections;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (const auto& [name, server] : servers_) {
      connections.push_back(server->connection);
      if (server->listing) {
        asio::post(server->strand,
                   [server] { server->cancel.emit(asio::cancellation_type::terminal); });
      }
    }
    connections.insert(connections.end(), retired_.begin(), retired_.end());
    servers_.clear();
    retired_.clear();
  }
  auto gather = std::make_shared<Gather>(options_.executor);
  gather->remaining = static_cast<int>(connections.size());
  for (const auto& connection : connections) {
    auto close_one = [](std::shared_ptr<mcp::ServerConnection> closing,
                        std::shared_ptr<Gather> done) -> asio::awaitable<void> {
      co_await asio::this_coro::throw_if_cancelled(false);
      co_await closing->close();
      done->done();
    };
    asio::co_spawn(options_.executor, close_one(connection, gather), asio::detached);
  }
  // stdio servers get their close grace twice (SIGTERM, then SIGKILL); past
  // that the process ends anyway.
  co_await gather->wait(std::chrono::seconds(15));
}

}  // namespace ava::capabilities
