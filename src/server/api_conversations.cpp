// /api/conversations: the catalog, input and driver control.
#include <charconv>

#include <nlohmann/json.hpp>

#include "ava/base/clock.hpp"
#include "ava/base/utf8.hpp"
#include "ava/policy/settings.hpp"
#include "ava/prompts/builtins.hpp"
#include "ava/prompts/commands.hpp"
#include "ava/server/permissions.hpp"
#include "server/api.hpp"

namespace ava::server {
namespace {

// A title from the first input when the conversation has none yet.
std::string title_from(std::string_view text) {
  text = text.substr(0, text.find('\n'));
  constexpr std::size_t max_title = 80;
  if (text.size() <= max_title) return std::string(text);
  return std::string(base::utf8::truncate(text, max_title)) + "…";
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

Result<httpd::HttpResponse> list(const ApiContext& context, const httpd::HttpRequest& request) {
  std::size_t limit = SIZE_MAX;
  if (auto text = request.query_value("limit")) {
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (error != std::errc() || end != text->data() + text->size()) {
      return fail(ErrorCode::invalid_argument, "limit must be a number");
    }
  }
  registry::Registry::Filter filter = filter_of(request);
  filter.limit = limit;
  protocol::ConversationList list;
  for (auto& conversation : context.registry->conversations(filter)) {
    list.conversations.push_back(conversation_view(context, std::move(conversation)));
  }
  return shaped_response(200, list);
}

Result<protocol::Conversation> create(const ApiContext& context,
                                      const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_create_conversation(body));
  return context.host->create(parsed);
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

Result<httpd::HttpResponse> show(const ApiContext& context, const httpd::HttpRequest& request) {
  auto conversation = context.registry->conversation(request.params[0]);
  if (!conversation) return fail(ErrorCode::not_found, "no such conversation");
  auto view = conversation_view(context, *conversation);
  if (auto live = context.host->find_loaded(conversation->id))
    view.status = driver_status(live->agent->status());
  return shaped_response(200, view);
}

Result<httpd::HttpResponse> patch(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_conversation_patch(body));
  AVA_TRY(auto patched, context.registry->patch_conversation(request.params[0], parsed));
  auto view = conversation_view(context, std::move(patched));
  context.status->publish(protocol::CatalogMessage{.action = "updated", .conversation = view});
  return shaped_response(200, view);
}

void name_after_first_input(const ApiContext& context, const std::string& id,
                            const std::string& text) {
  auto conversation = context.registry->conversation(id);
  if (!conversation || !conversation->title.empty() || text.empty()) return;
  protocol::ConversationPatch titled;
  titled.title = title_from(text);
  if (auto patched = context.registry->patch_conversation(id, titled)) {
    context.status->publish(protocol::CatalogMessage{
        .action = "updated", .conversation = conversation_view(context, std::move(*patched))});
  }
}

// /clear: a new conversation in the same project, with the same model and
// the mode a person chose here; the old one stays as it is.
Result<httpd::HttpResponse> clear(const ApiContext& context, const std::string& id,
                                  const protocol::InputRequest& parsed, const agent::Agent& agent) {
  if (!parsed.attachments.empty()) {
    return fail(ErrorCode::invalid_argument, "/clear takes no attachments");
  }
  auto conversation = context.registry->conversation(id);
  if (!conversation) return fail(ErrorCode::not_found, "no conversation " + id);
  const auto status = agent.status();
  protocol::CreateConversation fresh{.project_id = conversation->project_id,
                                     .model = {.provider = status.provider, .model = status.model}};
  if (auto permissions = agent.permissions()) {
    fresh.permission_mode = std::string(policy::to_string(permissions->rules.mode));
  }
  AVA_TRY(auto created, context.host->create(fresh));
  return shaped_response(
      201, protocol::InputAccepted{.input_id = parsed.input_id, .new_conversation_id = created.id});
}

Result<httpd::HttpResponse> input(const ApiContext& context, const httpd::HttpRequest& request) {
  const std::string& id = request.params[0];
  if (*context.restart_pending) {
    return fail(ErrorCode::unavailable,
                "the backend restarts for an update as soon as the running turns end; send again"
                " in a moment (the same inputId keeps it exactly once)");
  }
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_input_request(body));
  AVA_TRY(auto live, context.host->open(id));
  if (auto slash = prompts::parse_slash(parsed.text); slash && slash->name == "clear") {
    return clear(context, id, parsed, *live->agent);
  }
  agent::Input input{.text = parsed.text, .input_id = parsed.input_id};
  for (auto& attachment : parsed.attachments) {
    llm::ImageBlock image;
    image.media_type = std::move(attachment.media_type);
    image.data = std::move(attachment.data);
    input.attachments.push_back(std::move(image));
  }
  agent::Agent& agent = *live->agent;
  AVA_TRY(auto receipt, parsed.kind == protocol::InputKind::steer
                            ? agent.steer(std::move(input))
                            : agent.followup(std::move(input)));
  if (!receipt.duplicate) {
    context.registry->touch(id, base::unix_ms_now());
    name_after_first_input(context, id, parsed.text);
  }
  const protocol::InputAccepted accepted{.input_id = receipt.input_id,
                                         .seq = static_cast<std::int64_t>(receipt.seq),
                                         .duplicate = receipt.duplicate};
  return shaped_response(202, accepted);
}

using Action = std::function<Result<void>(agent::Agent&)>;

Reply control(const std::shared_ptr<ApiContext>& context, Action action) {
  return [context, action = std::move(action)](
             const httpd::HttpRequest& request) -> Result<httpd::HttpResponse> {
    AVA_TRY(auto live, context->host->open(request.params[0]));
    AVA_TRY_VOID(action(*live->agent));
    return shaped_response(200, driver_status(live->agent->status()));
  };
}

Result<httpd::HttpResponse> set_model(const ApiContext& context,
                                      const httpd::HttpRequest& request) {
  const std::string& id = request.params[0];
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto model, protocol::parse_model_ref(body));
  AVA_TRY(auto live, context.host->open(id));
  agent::Agent& agent = *live->agent;
  agent::ModelChoice choice;
  choice.provider = model.provider;
  choice.model = model.model;
  AVA_TRY_VOID(agent.set_model(choice));
  protocol::ConversationPatch changed;
  changed.model = model;
  (void)context.registry->patch_conversation(id, changed);
  return shaped_response(200, driver_status(agent.status()));
}

Result<httpd::HttpResponse> status(const ApiContext& context, const httpd::HttpRequest& request) {
  AVA_TRY(auto live, context.host->open(request.params[0]));
  return shaped_response(200, driver_status(live->agent->status()));
}

Result<httpd::HttpResponse> context_report(const ApiContext& context,
                                           const httpd::HttpRequest& request) {
  AVA_TRY(auto live, context.host->open(request.params[0]));
  const auto report = live->agent->context_report();
  const auto count = [](auto value) { return static_cast<std::int64_t>(value); };
  protocol::ContextReport shown{.messages = count(report.messages),
                                .estimated_tokens = count(report.estimated_tokens),
                                .context_window = count(report.context_window),
                                .system_prompt_chars = count(report.system_prompt_chars),
                                .tool_schema_chars = count(report.tool_schema_chars),
                                .compactions = count(report.compactions),
                                .pending_inputs = report.pending_inputs,
                                .unpaired_calls = report.unpaired_calls,
                                .context_files = {}};
  for (const auto& file : report.context_files) {
    shown.context_files.push_back({.path = file.path.string(),
                                   .scope = file.scope,
                                   .bytes = count(file.bytes),
                                   .included = count(file.included)});
  }
  return shaped_response(200, shown);
}

Result<std::filesystem::path> project_of(const ApiContext& context, const std::string& id);

// The slash commands of the conversation's project and user, for the
// composer's completion (read afresh: a new template works at once).
Result<httpd::HttpResponse> list_commands(const ApiContext& context,
                                          const httpd::HttpRequest& request) {
  AVA_TRY(auto project, project_of(context, request.params[0]));
  protocol::SlashCommandList list;
  for (const auto& builtin : prompts::builtin_commands()) {
    list.commands.push_back({.name = std::string(builtin.name),
                             .description = std::string(builtin.description),
                             .argument_hint = std::string(builtin.argument_hint),
                             .scope = "builtin"});
  }
  for (auto& command : prompts::discover_commands({.cwd = project, .home = context.home->root()})) {
    if (prompts::find_builtin(command.name)) continue;  // the built-in wins
    list.commands.push_back({.name = std::move(command.name),
                             .description = std::move(command.description),
                             .argument_hint = std::move(command.argument_hint),
                             .scope = std::move(command.scope)});
  }
  return shaped_response(200, list);
}

// The project folder of a registered conversation.
Result<std::filesystem::path> project_of(const ApiContext& context, const std::string& id) {
  auto conversation = context.registry->conversation(id);
  if (!conversation) return fail(ErrorCode::not_found, "no conversation " + id);
  auto project = context.registry->project(conversation->project_id);
  if (!project) return fail(ErrorCode::not_found, "no project " + conversation->project_id);
  return std::filesystem::path(project->path);
}

Result<httpd::HttpResponse> decide_approval(const ApiContext& context,
                                            const httpd::HttpRequest& request) {
  const std::string& id = request.params[0];
  const std::string& approval_id = request.params[1];
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_approval_decision(body));
  AVA_TRY(auto live, context.host->open(id));
  agent::Agent& agent = *live->agent;
  agent::ApprovalAnswer answer{.decision = parsed.decision == protocol::ApprovalDecision::allow
                                               ? session::ApprovalDecision::allow
                                               : session::ApprovalDecision::deny,
                               .scope = parsed.scope == protocol::ApprovalScope::project
                                            ? session::ApprovalScope::project
                                        : parsed.scope == protocol::ApprovalScope::conversation
                                            ? session::ApprovalScope::conversation
                                            : session::ApprovalScope::once,
                               .rule = parsed.rule,
                               .message = parsed.message};
  if (answer.decision == session::ApprovalDecision::allow &&
      answer.scope == session::ApprovalScope::project) {
    // The rule goes to the project's settings first, so a decision is only
    // recorded once what it promises is written; the agent applies it too.
    const auto status = agent.status();
    const auto pending =
        std::ranges::find(status.approvals, approval_id, &session::ApprovalRequested::approval_id);
    if (pending == status.approvals.end()) {
      return fail(ErrorCode::conflict, "no pending approval " + approval_id.substr(0, 64) +
                                           " (unknown, already decided, or its call was answered)");
    }
    if (answer.rule.empty() && !pending->suggested_rules.empty()) {
      answer.rule = pending->suggested_rules.front();
    }
    if (answer.rule.empty()) {
      return fail(ErrorCode::invalid_argument, "no rule to grant for this call: name one");
    }
    AVA_TRY(auto project, project_of(context, id));
    AVA_TRY_VOID(policy::add_project_rule(project, policy::Verdict::allow, answer.rule));
  }
  AVA_TRY_VOID(agent.decide(approval_id, answer));
  return shaped_response(200, driver_status(agent.status()));
}

Result<httpd::HttpResponse> show_permissions(const ApiContext& context,
                                             const httpd::HttpRequest& request) {
  const std::string& id = request.params[0];
  AVA_TRY(auto project, project_of(context, id));
  AVA_TRY(auto loaded, load_conversation_permissions(*context.home, project, {}, {}));
  AVA_TRY(auto live, context.host->open(id));
  const auto status = live->agent->status();
  protocol::PermissionsView view{.mode = status.permission_mode,
                                 .mode_source = loaded.effective.mode_source,
                                 .sandbox = status.sandbox,
                                 .sandbox_support = proc::sandbox_support().describe(),
                                 .rules = {}};
  if (view.mode != std::string(policy::to_string(loaded.effective.rules.mode))) {
    view.mode_source = "this conversation";
  }
  for (const auto list : {policy::Verdict::deny, policy::Verdict::ask, policy::Verdict::allow}) {
    for (const auto& listed : loaded.effective.listed) {
      if (listed.list != list) continue;
      view.rules.push_back({.list = std::string(policy::to_string(list)),
                            .rule = listed.rule.text,
                            .source = listed.source});
    }
  }
  // Rules a person granted while deciding approvals come after the files'.
  for (const auto& rule : status.granted_rules) {
    view.rules.push_back({.list = "allow", .rule = rule, .source = "this conversation"});
  }
  return shaped_response(200, view);
}

Result<httpd::HttpResponse> set_permissions(const ApiContext& context,
                                            const httpd::HttpRequest& request) {
  AVA_TRY(auto body, json_body(request));
  AVA_TRY(auto parsed, protocol::parse_permission_mode(body));
  AVA_TRY(const auto mode, policy::parse_mode(parsed.mode));
  AVA_TRY(auto live, context.host->open(request.params[0]));
  AVA_TRY_VOID(live->agent->set_permission_mode(mode));
  return shaped_response(200, driver_status(live->agent->status()));
}

}  // namespace

void add_conversation_routes(httpd::Router& router, const std::shared_ptr<ApiContext>& context) {
  router.add("GET", "/api/conversations", answer(with(context, list)));
  router.add("POST", "/api/conversations",
             [context](httpd::Exchange& exchange) -> boost::asio::awaitable<void> {
               auto folder = project_folder(*context, exchange.request());
               if (folder && context->mcp) co_await context->mcp->wait_listed(*folder, mcp_wait);
               auto created = create(*context, exchange.request());
               // Its own MCP servers (an editor's) were started just now.
               auto live = created ? context->host->find_loaded(created->id) : nullptr;
               if (folder && live && live->own_mcp) {
                 co_await live->own_mcp->wait_listed(*folder, mcp_wait);
               }
               httpd::HttpResponse reply = respond_to(
                   created ? Result<httpd::HttpResponse>(shaped_response(
                                 201, conversation_view(*context, std::move(*created))))
                           : Result<httpd::HttpResponse>(std::unexpected(created.error())));
               co_await exchange.respond(std::move(reply));
             });
  router.add("GET", "/api/conversations/{id}", answer(with(context, show)));
  router.add("PATCH", "/api/conversations/{id}", answer(with(context, patch)));
  router.add("DELETE", "/api/conversations/{id}",
             [context](httpd::Exchange& exchange) -> boost::asio::awaitable<void> {
               const std::string& id = exchange.request().params.at(0);
               auto before = context->registry->conversation(id);
               auto removed = co_await context->host->remove(id);
               if (removed && before) {
                 context->status->publish(protocol::CatalogMessage{
                     .action = "deleted", .conversation = conversation_view(*context, *before)});
               }
               const protocol::Removed answer_body;
               httpd::HttpResponse reply = respond_to(
                   removed ? Result<httpd::HttpResponse>(shaped_response(200, answer_body))
                           : Result<httpd::HttpResponse>(std::unexpected(removed.error())));
               co_await exchange.respond(std::move(reply));
             });
  router.add("POST", "/api/conversations/{id}/input",
             [context](httpd::Exchange& exchange) -> boost::asio::awaitable<void> {
               // A log that refused a write is reopened (and so recovered)
               // first: input is taken again once the disk has room.
               co_await context->host->reopen_if_failed(exchange.request().params.at(0));
               co_await exchange.respond(respond_to(input(*context, exchange.request())));
             });
  router.add("POST", "/api/conversations/{id}/pause",
             answer(control(context, [](agent::Agent& a) { return a.pause(); })));
  router.add("POST", "/api/conversations/{id}/resume",
             answer(control(context, [](agent::Agent& a) { return a.resume(); })));
  router.add("POST", "/api/conversations/{id}/abort",
             answer(control(context, [](agent::Agent& a) { return a.abort(); })));
  router.add("PUT", "/api/conversations/{id}/model", answer(with(context, set_model)));
  router.add("GET", "/api/conversations/{id}/status", answer(with(context, status)));
  router.add("GET", "/api/conversations/{id}/context", answer(with(context, context_report)));
  router.add("GET", "/api/conversations/{id}/commands", answer(with(context, list_commands)));
  router.add("POST", "/api/conversations/{id}/approvals/{approval}",
             answer(with(context, decide_approval)));
  router.add("GET", "/api/conversations/{id}/permissions", answer(with(context, show_permissions)));
  router.add("PUT", "/api/conversations/{id}/permissions", answer(with(context, set_permissions)));
}

}  // namespace ava::server
