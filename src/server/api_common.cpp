#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "server/api.hpp"

namespace ava::server {

httpd::HttpResponse respond_to(Result<httpd::HttpResponse> result) {
  if (!result) return httpd::error_response(result.error());
  return std::move(*result);
}

httpd::Handler answer(Reply reply) {
  return [reply = std::move(reply)](httpd::Exchange& exchange) -> boost::asio::awaitable<void> {
    httpd::HttpResponse response = respond_to(reply(exchange.request()));
    co_await exchange.respond(std::move(response));
  };
}

Result<nlohmann::json> json_body(const httpd::HttpRequest& request) {
  // The fence already refused other media types.
  if (request.body.empty()) return nlohmann::json::object();
  auto document = base::parse_json(request.body);
  if (!document) {
    return fail(ErrorCode::invalid_argument,
                "the body is not valid JSON: " + document.error().message);
  }
  return document;
}

protocol::DriverStatus driver_status(const agent::Status& status) {
  const auto& usage = status.usage;
  return {.state = std::string(agent::to_string(status.state)),
          .session_id = status.session_id,
          .provider = status.provider,
          .model = status.model,
          .turn_id = status.turn_id,
          .step = static_cast<std::int64_t>(status.step),
          .pending_inputs = static_cast<std::int64_t>(status.pending_inputs),
          .activity = status.activity,
          .usage = {.input_tokens = usage.input_tokens,
                    .output_tokens = usage.output_tokens,
                    .cache_read_tokens = usage.cache_read_tokens,
                    .cache_write_tokens = usage.cache_write_tokens,
                    .reasoning_tokens = usage.reasoning_tokens},
          .last_seq = static_cast<std::int64_t>(status.last_seq),
          .last_error = status.last_error,
          .approvals = pending_approvals(status),
          .permission_mode = status.permission_mode,
          .sandbox = status.sandbox,
          .goal = status.goal};
}

std::vector<protocol::PendingApproval> pending_approvals(const agent::Status& status) {
  std::vector<protocol::PendingApproval> approvals;
  for (const auto& request : status.approvals) {
    approvals.push_back(
        {.approval_id = request.approval_id,
         .turn_id = request.turn_id,
         .step = request.step,
         .call_id = request.call_id,
         .tool_name = request.tool_name,
         .arguments = request.arguments.is_object() ? request.arguments : nlohmann::json::object(),
         .category = request.category,
         .reason = request.reason,
         .rule = request.rule,
         .suggested_rules = request.suggested_rules});
  }
  return approvals;
}

protocol::LoadedDriver loaded_driver(const LiveConversation& live) {
  return {.status = driver_status(live.agent->status()), .conversation_id = live.id};
}

protocol::ConversationView conversation_view(const ApiContext& context,
                                             protocol::Conversation conversation) {
  protocol::ConversationView view;
  if (auto live = context.host->find_loaded(conversation.id)) {
    const auto status = live->agent->status();
    view.loaded = true;
    view.state = std::string(agent::to_string(status.state));
    conversation.last_seq =
        std::max<std::int64_t>(conversation.last_seq, static_cast<std::int64_t>(status.last_seq));
  }
  view.conversation = std::move(conversation);
  return view;
}

}  // namespace ava::server
