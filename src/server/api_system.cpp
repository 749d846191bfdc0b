// Health, identity, process status, usage and shutdown.
#include <nlohmann/json.hpp>

#include "ava/llm/catalog.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

httpd::HttpResponse health(const ApiContext& context, const httpd::HttpRequest&) {
  const auto& info = context.info;
  return httpd::json_response(200, {{"ok", true},
                                    {"mode", info.mode},
                                    {"version", info.version},
                                    {"machineId", info.machine.machine_id},
                                    {"pid", info.pid},
                                    {"startedMs", info.started_ms}});
}

httpd::HttpResponse machine(const ApiContext& context, const httpd::HttpRequest&) {
  const auto& identity = context.info.machine;
  return httpd::json_response(200, {{"machineId", identity.machine_id},
                                    {"hostname", identity.hostname},
                                    {"createdMs", identity.created_ms}});
}

httpd::HttpResponse process_status(const ApiContext& context, const httpd::HttpRequest&) {
  nlohmann::json loaded = nlohmann::json::array();
  std::size_t active = 0;
  for (const auto& live : context.host->loaded()) {
    const auto status = live->agent->status();
    if (status.state != agent::DriverState::idle && status.state != agent::DriverState::closed)
      ++active;
    nlohmann::json item = status_json(status);
    item["conversationId"] = live->id;
    loaded.push_back(std::move(item));
  }
  return httpd::json_response(200, {{"mode", context.info.mode},
                                    {"pid", context.info.pid},
                                    {"conversations", context.registry->conversation_count()},
                                    {"loaded", std::move(loaded)},
                                    {"active", active}});
}

protocol::TokenTotals usage_of(const ApiContext& context,
                               const protocol::Conversation& conversation) {
  if (auto live = context.host->find_loaded(conversation.id))
    return totals_of(live->agent->status().usage);
  return conversation.usage;
}

httpd::HttpResponse usage(const ApiContext& context, const httpd::HttpRequest&) {
  nlohmann::json items = nlohmann::json::array();
  protocol::TokenTotals total;
  for (const auto& conversation : context.registry->conversations({})) {
    const auto totals = usage_of(context, conversation);
    total.input += totals.input;
    total.output += totals.output;
    total.cache_read += totals.cache_read;
    total.cache_write += totals.cache_write;
    items.push_back({{"conversationId", conversation.id}, {"usage", protocol::to_json(totals)}});
  }
  return httpd::json_response(
      200, {{"total", protocol::to_json(total)}, {"conversations", std::move(items)}});
}

httpd::HttpResponse conversation_usage(const ApiContext& context,
                                       const httpd::HttpRequest& request) {
  auto conversation = context.registry->conversation(request.params[0]);
  if (!conversation) return httpd::error_response(404, "not_found", "no such conversation");
  nlohmann::json out{{"conversationId", conversation->id},
                     {"usage", protocol::to_json(usage_of(context, *conversation))}};
  if (auto live = context.host->find_loaded(conversation->id)) {
    const auto status = live->agent->status();
    const auto model = llm::model_info(status.model, context.settings->current().get());
    if (model.known) out["costUsd"] = llm::cost_usd(model, status.usage);
  }
  return httpd::json_response(200, out);
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
                 httpd::HttpResponse accepted =
                     httpd::json_response(202, nlohmann::json::parse(R"({"stopping": true})"));
                 co_await exchange.respond(std::move(accepted));
                 context->request_shutdown();
               });
  }
}

}  // namespace ava::server
