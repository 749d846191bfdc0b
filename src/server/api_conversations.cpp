// /api/conversations: the catalog, input and driver control.
#include <charconv>

#include <nlohmann/json.hpp>

#include "ava/base/clock.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

// A title from the first input when the conversation has none yet.
std::string title_from(std::string_view text) {
  text = text.substr(0, text.find('\n'));
  constexpr std::size_t max_title = 80;
  if (text.size() <= max_title) return std::string(text);
  std::size_t cut = max_title;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;  // whole UTF-8 characters
  return std::string(text.substr(0, cut)) + "…";
}

registry::Registry::Filter filter_of(const httpd::HttpRequest& request) {
  registry::Registry::Filter filter;
  if (auto project = request.query_value("project")) filter.project_id = std::string(*project);
  const auto archived = request.query_value("archived");
  if (!archived) {
    filter.archived = false;
  } else if (*archived != "all") {
    filter.archived = *archived == "true" || *archived == "1";
  }
  return filter;
}

httpd::HttpResponse list(const ApiContext& context, const httpd::HttpRequest& request) {
  std::size_t limit = SIZE_MAX;
  if (auto text = request.query_value("limit")) {
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (error != std::errc() || end != text->data() + text->size()) {
      return httpd::error_response(400, "invalid_argument", "limit must be a number");
    }
  }
  registry::Registry::Filter filter = filter_of(request);
  filter.limit = limit;
  nlohmann::json items = nlohmann::json::array();
  for (const auto& conversation : context.registry->conversations(filter)) {
    items.push_back(conversation_json(context, conversation));
  }
  return httpd::json_response(200, {{"conversations", std::move(items)}});
}

httpd::HttpResponse create(const ApiContext& context, const httpd::HttpRequest& request) {
  auto body = json_body(request);
  if (!body) return httpd::error_response(body.error());
  auto parsed = protocol::parse_create_conversation(*body);
  if (!parsed) return httpd::error_response(parsed.error());
  auto created = context.host->create(*parsed);
  if (!created) return httpd::error_response(created.error());
  return httpd::json_response(201, conversation_json(context, *created));
}

// The folder of the project a create request names, when it names one.
std::optional<std::filesystem::path> project_folder(const ApiContext& context,
                                                    const httpd::HttpRequest& request) {
  auto body = json_body(request);
  if (!body) return std::nullopt;
  auto parsed = protocol::parse_create_conversation(*body);
  if (!parsed) return std::nullopt;
  auto project = context.registry->project(parsed->project_id);
  if (!project) return std::nullopt;
  return std::filesystem::path(project->path);
}

// How long a new conversation waits for the project's MCP servers to list
// their tools (they were started when the server started; usually ready).
constexpr std::chrono::milliseconds mcp_wait{5000};

httpd::HttpResponse show(const ApiContext& context, const httpd::HttpRequest& request) {
  auto conversation = context.registry->conversation(request.params[0]);
  if (!conversation) return httpd::error_response(404, "not_found", "no such conversation");
  nlohmann::json out = conversation_json(context, *conversation);
  if (auto live = context.host->find_loaded(conversation->id))
    out["status"] = status_json(live->agent->status());
  return httpd::json_response(200, out);
}

httpd::HttpResponse patch(const ApiContext& context, const httpd::HttpRequest& request) {
  auto body = json_body(request);
  if (!body) return httpd::error_response(body.error());
  auto parsed = protocol::parse_conversation_patch(*body);
  if (!parsed) return httpd::error_response(parsed.error());
  auto patched = context.registry->patch_conversation(request.params[0], *parsed);
  if (!patched) return httpd::error_response(patched.error());
  nlohmann::json out = conversation_json(context, *patched);
  context.status->publish({{"type", "catalog"}, {"action", "updated"}, {"conversation", out}});
  return httpd::json_response(200, out);
}

void name_after_first_input(const ApiContext& context, const std::string& id,
                            const std::string& text) {
  auto conversation = context.registry->conversation(id);
  if (!conversation || !conversation->title.empty() || text.empty()) return;
  protocol::ConversationPatch titled;
  titled.title = title_from(text);
  if (auto patched = context.registry->patch_conversation(id, titled)) {
    context.status->publish({{"type", "catalog"},
                             {"action", "updated"},
                             {"conversation", protocol::to_json(*patched)}});
  }
}

httpd::HttpResponse input(const ApiContext& context, const httpd::HttpRequest& request) {
  const std::string& id = request.params[0];
  auto body = json_body(request);
  if (!body) return httpd::error_response(body.error());
  auto parsed = protocol::parse_input_request(*body);
  if (!parsed) return httpd::error_response(parsed.error());
  auto live = context.host->open(id);
  if (!live) return httpd::error_response(live.error());
  agent::Input input{.text = parsed->text, .input_id = parsed->input_id};
  for (auto& attachment : parsed->attachments) {
    llm::ImageBlock image;
    image.media_type = std::move(attachment.media_type);
    image.data = std::move(attachment.data);
    input.attachments.push_back(std::move(image));
  }
  agent::Agent& agent = *(*live)->agent;
  auto receipt = parsed->kind == protocol::InputKind::steer ? agent.steer(std::move(input))
                                                            : agent.followup(std::move(input));
  if (!receipt) return httpd::error_response(receipt.error());
  if (!receipt->duplicate) {
    context.registry->touch(id, base::unix_ms_now());
    name_after_first_input(context, id, parsed->text);
  }
  const protocol::InputAccepted accepted{.input_id = receipt->input_id,
                                         .seq = static_cast<std::int64_t>(receipt->seq),
                                         .duplicate = receipt->duplicate};
  return httpd::json_response(202, protocol::to_json(accepted));
}

using Action = std::function<Result<void>(agent::Agent&)>;

Reply control(const std::shared_ptr<ApiContext>& context, Action action) {
  return [context, action = std::move(action)](const httpd::HttpRequest& request) {
    auto live = context->host->open(request.params[0]);
    if (!live) return httpd::error_response(live.error());
    if (auto done = action(*(*live)->agent); !done) return httpd::error_response(done.error());
    return httpd::json_response(200, status_json((*live)->agent->status()));
  };
}

httpd::HttpResponse set_model(const ApiContext& context, const httpd::HttpRequest& request) {
  const std::string& id = request.params[0];
  auto body = json_body(request);
  if (!body) return httpd::error_response(body.error());
  auto model = protocol::parse_model_ref(*body);
  if (!model) return httpd::error_response(model.error());
  auto live = context.host->open(id);
  if (!live) return httpd::error_response(live.error());
  agent::Agent& agent = *(*live)->agent;
  agent::ModelChoice choice;
  choice.provider = model->provider;
  choice.model = model->model;
  if (auto set = agent.set_model(choice); !set) return httpd::error_response(set.error());
  protocol::ConversationPatch changed;
  changed.model = *model;
  (void)context.registry->patch_conversation(id, changed);
  return httpd::json_response(200, status_json(agent.status()));
}

httpd::HttpResponse status(const ApiContext& context, const httpd::HttpRequest& request) {
  auto live = context.host->open(request.params[0]);
  if (!live) return httpd::error_response(live.error());
  return httpd::json_response(200, status_json((*live)->agent->status()));
}

httpd::HttpResponse context_report(const ApiContext& context, const httpd::HttpRequest& request) {
  auto live = context.host->open(request.params[0]);
  if (!live) return httpd::error_response(live.error());
  const auto report = (*live)->agent->context_report();
  return httpd::json_response(200, {{"messages", report.messages},
                                    {"estimatedTokens", report.estimated_tokens},
                                    {"contextWindow", report.context_window},
                                    {"systemPromptChars", report.system_prompt_chars},
                                    {"toolSchemaChars", report.tool_schema_chars},
                                    {"compactions", report.compactions},
                                    {"pendingInputs", report.pending_inputs},
                                    {"unpairedCalls", report.unpaired_calls}});
}

}  // namespace

void add_conversation_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/conversations", answer(with(context, list)));
  router.add("POST", "/api/conversations",
             [context](httpd::Exchange& exchange) -> boost::asio::awaitable<void> {
               auto folder = project_folder(*context, exchange.request());
               if (folder && context->mcp) co_await context->mcp->wait_listed(*folder, mcp_wait);
               httpd::HttpResponse reply = create(*context, exchange.request());
               co_await exchange.respond(std::move(reply));
             });
  router.add("GET", "/api/conversations/{id}", answer(with(context, show)));
  router.add("PATCH", "/api/conversations/{id}", answer(with(context, patch)));
  router.add("POST", "/api/conversations/{id}/input", answer(with(context, input)));
  router.add("POST", "/api/conversations/{id}/pause",
             answer(control(context, [](agent::Agent& a) { return a.pause(); })));
  router.add("POST", "/api/conversations/{id}/resume",
             answer(control(context, [](agent::Agent& a) { return a.resume(); })));
  router.add("POST", "/api/conversations/{id}/abort",
             answer(control(context, [](agent::Agent& a) { return a.abort(); })));
  router.add("PUT", "/api/conversations/{id}/model", answer(with(context, set_model)));
  router.add("GET", "/api/conversations/{id}/status", answer(with(context, status)));
  router.add("GET", "/api/conversations/{id}/context", answer(with(context, context_report)));
}

}  // namespace ava::server
