// Health, identity, process status, usage and shutdown.
#include <spdlog/spdlog.h>

#include <chrono>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "ava/llm/catalog.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

Result<httpd::HttpResponse> health(const ApiContext& context, const httpd::HttpRequest&) {
  const auto& info = context.info;
  return shaped_response(200, protocol::Health{.ok = true,
                                               .mode = info.mode,
                                               .version = info.version,
                                               .machine_id = info.machine.machine_id,
                                               .pid = info.pid,
                                               .started_ms = info.started_ms});
}

Result<httpd::HttpResponse> machine(const ApiContext& context, const httpd::HttpRequest&) {
  const auto& identity = context.info.machine;
  return shaped_response(200, protocol::MachineInfo{.machine_id = identity.machine_id,
                                                    .hostname = identity.hostname,
                                                    .created_ms = identity.created_ms});
}

Result<httpd::HttpResponse> process_status(const ApiContext& context, const httpd::HttpRequest&) {
  protocol::ProcessStatus view{
      .mode = context.info.mode,
      .pid = context.info.pid,
      .conversations = static_cast<std::int64_t>(context.registry->conversation_count()),
      .loaded = {},
      .active = 0,
      .restart_pending = *context.restart_pending};
  for (const auto& live : context.host->loaded()) {
    const auto status = live->agent->status();
    if (status.state != agent::DriverState::idle && status.state != agent::DriverState::closed)
      ++view.active;
    view.loaded.push_back({.status = driver_status(status), .conversation_id = live->id});
  }
  return shaped_response(200, view);
}

protocol::TokenTotals usage_of(const ApiContext& context,
                               const protocol::Conversation& conversation) {
  if (auto live = context.host->find_loaded(conversation.id))
    return totals_of(live->agent->status().usage);
  return conversation.usage;
}

Result<httpd::HttpResponse> usage(const ApiContext& context, const httpd::HttpRequest&) {
  protocol::UsageSummary summary;
  for (const auto& conversation : context.registry->conversations({})) {
    const auto totals = usage_of(context, conversation);
    summary.total.input += totals.input;
    summary.total.output += totals.output;
    summary.total.cache_read += totals.cache_read;
    summary.total.cache_write += totals.cache_write;
    summary.conversations.push_back({.conversation_id = conversation.id, .usage = totals});
  }
  return shaped_response(200, summary);
}

Result<httpd::HttpResponse> conversation_usage(const ApiContext& context,
                                               const httpd::HttpRequest& request) {
  auto conversation = context.registry->conversation(request.params[0]);
  if (!conversation) return fail(ErrorCode::not_found, "no such conversation");
  protocol::ConversationUsage out{.conversation_id = conversation->id,
                                  .usage = usage_of(context, *conversation)};
  if (auto live = context.host->find_loaded(conversation->id)) {
    const auto status = live->agent->status();
    const auto model = llm::model_info(status.model, context.settings->current().get());
    if (model.known) out.cost_usd = llm::cost_usd(model, status.usage);
  }
  return shaped_response(200, out);
}

Result<protocol::ShutdownRequest> shutdown_request(const httpd::HttpRequest& request) {
  if (request.body.empty()) return protocol::ShutdownRequest{};
  AVA_TRY(auto body, json_body(request));
  return protocol::from_json<protocol::ShutdownRequest>(body);
}

// A turn in progress: running, on its way to pause or abort, or an
// acknowledged input about to start one. A turn waiting for an approval, or
// paused, survives a restart in its log.
bool turn_in_progress(const ApiContext& context) {
  for (const auto& live : context.host->loaded()) {
    const auto status = live->agent->status();
    const auto state = status.state;
    if (state == agent::DriverState::running || state == agent::DriverState::pausing ||
        state == agent::DriverState::aborting || status.pending_inputs > 0) {
      return true;
    }
  }
  return false;
}

// An update's restart: refuse new inputs, wait for the running turns to
// end, then shut down. Past `limit` the wait is given up and inputs are
// taken again: an update never cancels a turn.
boost::asio::awaitable<void> shut_down_when_idle(std::shared_ptr<ApiContext> context,
                                                 std::chrono::milliseconds limit) {
  if (context->restart_pending->exchange(true)) co_return;  // one wait at a time
  spdlog::info("restart pending: waiting for running turns to end (at most {} s)",
               limit.count() / 1000);
  auto executor = co_await boost::asio::this_coro::executor;
  boost::asio::steady_timer poll(executor);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (turn_in_progress(*context)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      *context->restart_pending = false;
      spdlog::warn("restart given up: turns still running after {} s", limit.count() / 1000);
      co_return;
    }
    poll.expires_after(std::chrono::milliseconds(100));
    co_await poll.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
  }
  context->request_shutdown();
}

}  // namespace

void add_system_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/health", answer(with(context, health)));
  router.add("GET", "/api/machine", answer(with(context, machine)));
  router.add("GET", "/api/status", answer(with(context, process_status)));
  router.add("GET", "/api/usage", answer(with(context, usage)));
  router.add("GET", "/api/conversations/{id}/usage", answer(with(context, conversation_usage)));
  if (context->request_shutdown) {
    router.add("POST", "/api/shutdown",
               [context](httpd::Exchange& exchange) -> boost::asio::awaitable<void> {
                 auto request = shutdown_request(exchange.request());
                 if (!request) {
                   co_await exchange.respond(respond_to(std::unexpected(request.error())));
                   co_return;
                 }
                 const bool when_idle = request->when_idle.value_or(false);
                 co_await exchange.respond(
                     shaped_response(202, protocol::Stopping{.when_idle = when_idle}));
                 if (!when_idle) {
                   context->request_shutdown();
                   co_return;
                 }
                 auto limit = std::chrono::milliseconds(request->max_wait_ms.value_or(600'000));
                 co_await shut_down_when_idle(context, limit);
               });
  }
}

}  // namespace ava::server
