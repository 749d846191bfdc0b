#include "ava/server/server.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ava/base/clock.hpp"
#include "ava/base/open_url.hpp"
#include "ava/base/version.hpp"
#include "ava/httpd/login_gate.hpp"
#include "ava/httpd/static_files.hpp"
#include "ava/machine/ownership.hpp"
#include "ava/protocol/automations.hpp"
#include "ava/server/providers.hpp"
#include "ava/server/settings_source.hpp"
#include "server/api.hpp"
#include "server/automation_runner.hpp"
#include "server/local_servers.hpp"

namespace ava::server {
namespace {

namespace asio = boost::asio;

int report(const Error& error, int code) {
  std::fprintf(stderr, "ava: %s\n", error.message.c_str());
  return code;
}

// Writes batched registry updates once a second.
asio::awaitable<void> flush_registry(registry::Registry& registry, asio::steady_timer& timer) {
  for (;;) {
    timer.expires_after(std::chrono::seconds(1));
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    if (auto flushed = registry.flush(); !flushed)
      spdlog::error("cannot write web.json: {}", flushed.error().message);
  }
}

}  // namespace

int run_api_server(const ServeOptions& options) {
  std::signal(SIGPIPE, SIG_IGN);
  // Every SSE subscriber is a descriptor: allow as many as the hard limit.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  auto home = base::Home::resolve();
  if (!home) return report(home.error(), 1);
  auto lock = machine::OwnerLock::acquire(*home);
  if (!lock) return report(lock.error(), 1);
  auto loaded_settings = llm::load_settings(*home);
  if (!loaded_settings) return report(loaded_settings.error(), 2);
  auto settings = std::make_shared<SettingsSource>(*home, std::move(*loaded_settings));
  auto machine = machine::load_or_create_machine(*home);
  if (!machine) return report(machine.error(), 1);
  auto registry = registry::Registry::load(home->file("web.json"));
  if (!registry) return report(registry.error(), 1);
  const bool backend = options.mode == "backend";

  asio::io_context io(options.threads);
  StatusFeed status(io.get_executor());
  // One connection per MCP server, shared by every conversation.
  auto mcp = capabilities::McpHub::create({.executor = io.get_executor(), .home = *home});
  ConversationHost host({.executor = io.get_executor(),
                         .home = *home,
                         .registry = registry->get(),
                         .status = &status,
                         .provider_factory = make_provider_factory(
                             io.get_executor(), [settings] { return settings->current(); }),
                         .mcp = mcp});

  auto context = std::make_shared<ApiContext>();
  context->info = {.mode = options.mode,
                   .version = std::string(base::version()),
                   .machine = *machine,
                   .pid = ::getpid(),
                   .started_ms = base::unix_ms_now()};
  context->registry = registry->get();
  context->host = &host;
  context->status = &status;
  context->settings = settings;
  context->mcp = mcp;
  context->home = *home;

  // Automations: each run a conversation of this host. The store opens now;
  // reconciling and planning run once the server answers (start-up stays
  // short however many automations there are).
  AutomationRunner runner(io.get_executor(), host, **registry);
  {
    auto scheduler = automation::Scheduler::create(
        {.executor = io.get_executor(),
         .store_file = automation::AutomationStore::file_of(*home),
         .runner = &runner,
         .on_occurrence = [&status](const automation::Automation& automation,
                                    const automation::Occurrence& occurrence) {
           status.publish(protocol::AutomationMessage{
               .automation_id = automation.id,
               .name = automation.name,
               .occurrence = {.scheduled_ms = occurrence.scheduled_ms,
                              .state = std::string(automation::to_string(occurrence.state)),
                              .trigger = occurrence.trigger,
                              .conversation_id = occurrence.conversation_id,
                              .claimed_ms = occurrence.claimed_ms,
                              .started_ms = occurrence.started_ms,
                              .finished_ms = occurrence.finished_ms,
                              .error = occurrence.error}});
         }});
    if (!scheduler) {
      spdlog::error("automations do not run: {}", scheduler.error().message);
    } else {
      context->automations = std::move(*scheduler);
    }
  }

  // Shutdown, the signal wait and the registry flush share one strand.
  auto strand = asio::make_strand(io);
  asio::signal_set signals(strand, SIGINT, SIGTERM);
  asio::steady_timer flush_timer(strand);
  asio::steady_timer local_servers_timer(strand);
  std::unique_ptr<httpd::HttpServer> server;
  bool stopping = false;
  auto shutdown = [&] {
    asio::post(strand, [&] {
      if (stopping) return;
      stopping = true;
      spdlog::info("shutting down");
      asio::co_spawn(
          strand,
          [&]() -> asio::awaitable<void> {
            co_await asio::this_coro::throw_if_cancelled(false);
            // Scheduling stops first: no run starts while the rest closes.
            if (context->automations) context->automations->stop();
            server->stop_accepting();
            context->terminals->hang_up_all();
            co_await host.close_all();
            co_await mcp->close();
            status.feed().close();
            flush_timer.cancel();
            local_servers_timer.cancel();
            if (auto flushed = (*registry)->flush(); !flushed) {
              spdlog::error("cannot write web.json: {}", flushed.error().message);
            }
            if (backend) machine::remove_backend_file(*home);
            signals.cancel();
            io.stop();
          },
          asio::detached);
    });
  };
  if (backend) context->request_shutdown = shutdown;

  // Both modes serve the web UI; a browser signs in through a login link.
  context->logins = std::make_shared<httpd::LoginGate>();
  auto router = std::make_shared<httpd::Router>();
  add_api_routes(*router, context);
  httpd::Handler web_ui = httpd::static_files(httpd::find_web_root());
  add_login_routes(*router, context, web_ui);
  router->set_fallback(std::move(web_ui));

  httpd::Fence fence{.logins = context->logins};
  if (backend) {
    auto token = machine::new_bearer_token();
    if (!token) return report(token.error(), 1);
    fence.token = std::move(*token);
  }
  auto listening = httpd::HttpServer::listen(io, {.port = options.port}, fence, router);
  if (!listening) return report(listening.error(), 1);
  server = std::move(*listening);
  context->logins->set_port(server->port());
  server->start();

  const std::string url = "http://127.0.0.1:" + std::to_string(server->port());
  if (backend) {
    const machine::BackendEndpoint endpoint{.pid = ::getpid(),
                                            .port = server->port(),
                                            .token = *fence.token,
                                            .version = std::string(base::version()),
                                            .machine_id = machine->machine_id,
                                            .started_ms = context->info.started_ms};
    if (auto written = machine::write_backend_file(*home, endpoint); !written)
      return report(written.error(), 1);
    std::printf("ava-backend listening on %s (pid %d, home %s)\n", url.c_str(),
                static_cast<int>(::getpid()), home->root().string().c_str());
  } else {
    // The code in the printed link lasts until used: the link may be opened
    // long after the start. `ava --serve` prints (and opens) only this one.
    auto code = context->logins->issue_code(/*lasting=*/true);
    if (!code) return report(code.error(), 1);
    const std::string login = context->logins->login_url(*code);
    std::printf("Ava is serving %s\n", login.c_str());
    if (options.open_browser) {
      // Without a display (over SSH) the printed link is the way in.
      if (auto opened = base::open_url(login);
          !opened && opened.error().code != ErrorCode::unavailable) {
        spdlog::warn("cannot open a browser: {}", opened.error().message);
      }
    }
  }
  std::fflush(stdout);

  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (!ec) shutdown();
  });
  asio::co_spawn(strand, flush_registry(**registry, flush_timer), asio::detached);
  asio::co_spawn(strand, watch_local_servers(*settings, status, local_servers_timer),
                 asio::detached);
  mcp->warm();  // tools known before the first conversation asks
  if (context->automations) {
    asio::post(io, [scheduler = context->automations] {
      if (auto started = scheduler->start(); !started) {
        spdlog::error("automations do not run: {}", started.error().message);
      }
    });
  }

  std::vector<std::thread> workers;
  for (int i = 1; i < options.threads; ++i) workers.emplace_back([&] { io.run(); });
  io.run();
  for (auto& worker : workers) worker.join();
  spdlog::info("stopped");
  return 0;
}

}  // namespace ava::server
