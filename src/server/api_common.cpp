#include <nlohmann/json.hpp>

#include "ava/base/json.hpp"
#include "server/api.hpp"

namespace ava::server {

httpd::Handler answer(Reply reply) {
  return [reply = std::move(reply)](httpd::Exchange& exchange) -> boost::asio::awaitable<void> {
    httpd::HttpResponse response = reply(exchange.request());
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

nlohmann::json status_json(const agent::Status& status) {
  return {{"state", agent::to_string(status.state)},
          {"sessionId", status.session_id},
          {"provider", status.provider},
          {"model", status.model},
          {"turnId", status.turn_id},
          {"step", status.step},
          {"pendingInputs", status.pending_inputs},
          {"activity", status.activity},
          {"usage",
           {{"inputTokens", status.usage.input_tokens},
            {"outputTokens", status.usage.output_tokens},
            {"cacheReadTokens", status.usage.cache_read_tokens},
            {"cacheWriteTokens", status.usage.cache_write_tokens},
            {"reasoningTokens", status.usage.reasoning_tokens}}},
          {"lastSeq", status.last_seq},
          {"lastError", status.last_error}};
}

nlohmann::json conversation_json(const ApiContext& context,
                                 const protocol::Conversation& conversation) {
  nlohmann::json out = protocol::to_json(conversation);
  if (auto live = context.host->find_loaded(conversation.id)) {
    const auto status = live->agent->status();
    out["loaded"] = true;
    out["state"] = agent::to_string(status.state);
    out["lastSeq"] =
        std::max<std::int64_t>(conversation.last_seq, static_cast<std::int64_t>(status.last_seq));
  } else {
    out["loaded"] = false;
    out["state"] = "idle";
  }
  return out;
}

}  // namespace ava::server
