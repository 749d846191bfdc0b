// Health, identity, process status, usage and shutdown.
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
      .active = 0};
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
                 httpd::HttpResponse accepted = shaped_response(202, protocol::Stopping{});
                 co_await exchange.respond(std::move(accepted));
                 context->request_shutdown();
               });
  }
}

}  // namespace ava::server
