#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/error.hpp"
#include "ava/protocol/shape.hpp"

// The JSON shapes of projects, conversations and input (docs/api.md), shared
// by the API server (the server package), the registry and the clients
// (desktop, web). Field names are camelCase on the wire. Each struct's Shape
// table is its one description: to_json, from_json and the TypeScript
// interface all come from it (shape.hpp). Decoding is strict about types and
// lenient about unknown fields, so an older server accepts a newer client's
// extra fields.
namespace ava::protocol {

// {"error": {"code": "...", "message": "..."}}: every non-2xx response.
struct ErrorDetail {
  std::string code;  // an ErrorCode's name, or one of the HTTP layer's own
  std::string message;
};
template <>
struct Shape<ErrorDetail> {
  static constexpr std::string_view name = "ErrorDetail";
  static constexpr std::string_view doc = "What went wrong.";
  static constexpr auto fields =
      std::tuple{field("code", &ErrorDetail::code), field("message", &ErrorDetail::message)};
};
struct ApiError {
  ErrorDetail error;
};
template <>
struct Shape<ApiError> {
  static constexpr std::string_view name = "ApiError";
  static constexpr std::string_view doc = "Every non-2xx response.";
  static constexpr auto fields = std::tuple{field("error", &ApiError::error)};
};
nlohmann::json error_body(std::string_view code, std::string_view message);

struct ModelRef {
  std::string provider;  // empty: the configured default
  std::string model;
};
template <>
struct Shape<ModelRef> {
  static constexpr std::string_view name = "ModelRef";
  static constexpr std::string_view doc =
      "Which model answers; empty strings mean the configured default.";
  static constexpr auto fields =
      std::tuple{field("provider", &ModelRef::provider), field("model", &ModelRef::model)};
};

struct Project {
  std::string id;
  std::string path;  // absolute, canonical
  std::string name;
  std::int64_t created_ms = 0;
};
template <>
struct Shape<Project> {
  static constexpr std::string_view name = "Project";
  static constexpr std::string_view doc = "A registered folder conversations run in.";
  static constexpr auto fields =
      std::tuple{field("id", &Project::id), field("path", &Project::path),
                 field("name", &Project::name), field("createdMs", &Project::created_ms)};
  static Result<void> check(const Project& project);
};

struct TokenTotals {
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t cache_read = 0;
  std::int64_t cache_write = 0;
};
template <>
struct Shape<TokenTotals> {
  static constexpr std::string_view name = "TokenTotals";
  static constexpr std::string_view doc = "Token usage totals.";
  static constexpr auto fields = std::tuple{field("inputTokens", &TokenTotals::input),
                                            field("outputTokens", &TokenTotals::output),
                                            field("cacheReadTokens", &TokenTotals::cache_read),
                                            field("cacheWriteTokens", &TokenTotals::cache_write)};
};

// A conversation's navigation metadata, as the registry keeps it: listing
// conversations reads only this, never the logs.
struct Conversation {
  std::string id;  // the session id; its log is sessions/<id>.jsonl.zst
  std::string project_id;
  std::string title;
  ModelRef model;
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;  // last input or turn end
  bool pinned = false;
  bool archived = false;
  std::int64_t reviewed_seq = 0;  // the review marker: events up to here were seen
  std::int64_t last_seq = 0;      // as of the last turn end this process saw
  TokenTotals usage;
  std::string automation_id;  // a run of this automation; empty for a person's
  // The folder of its recording (docs/eval.md) when created with "record".
  std::string recording;
};
template <>
struct Shape<Conversation> {
  static constexpr std::string_view name = "Conversation";
  static constexpr std::string_view doc = "A conversation's navigation metadata (web.json).";
  static constexpr auto fields = std::tuple{field("id", &Conversation::id),
                                            field("projectId", &Conversation::project_id),
                                            field("title", &Conversation::title),
                                            field("model", &Conversation::model),
                                            field("createdMs", &Conversation::created_ms),
                                            field("updatedMs", &Conversation::updated_ms),
                                            field("pinned", &Conversation::pinned),
                                            field("archived", &Conversation::archived),
                                            field("reviewedSeq", &Conversation::reviewed_seq),
                                            field("lastSeq", &Conversation::last_seq),
                                            field("usage", &Conversation::usage),
                                            omittable("automationId", &Conversation::automation_id),
                                            omittable("recording", &Conversation::recording)};
  static Result<void> check(const Conversation& conversation);
};

// POST /api/projects
struct CreateProject {
  std::string path;
  std::string name;  // default: the folder's name
};
template <>
struct Shape<CreateProject> {
  static constexpr std::string_view name = "CreateProject";
  static constexpr std::string_view doc = "POST /api/projects";
  static constexpr auto fields =
      std::tuple{field("path", &CreateProject::path), omittable("name", &CreateProject::name)};
  static Result<void> check(const CreateProject& create);
};

// POST /api/conversations
struct CreateConversation {
  std::string project_id;
  std::string title;
  ModelRef model;
  std::string permission_mode;  // ask, accept-edits, plan, auto; empty: the settings'
  // Record the provider exchanges and tool responses for `ava replay`, in
  // AVA_HOME/recordings/<id> (docs/eval.md).
  bool record = false;
  // MCP servers of this conversation only, in the mcpServers shape ({NAME:
  // {command, args, env} | {type: "http", url, headers}}): an editor's,
  // given in ACP's session/new. Started with it, closed with it.
  nlohmann::json mcp_servers = nlohmann::json::object();
};
template <>
struct Shape<CreateConversation> {
  static constexpr std::string_view name = "CreateConversation";
  static constexpr std::string_view doc = "POST /api/conversations";
  static constexpr auto fields = std::tuple{
      field("projectId", &CreateConversation::project_id),
      omittable("title", &CreateConversation::title),
      omittable("model", &CreateConversation::model),
      omittable("permissionMode", &CreateConversation::permission_mode),
      omittable("record", &CreateConversation::record),
      omittable("mcpServers", &CreateConversation::mcp_servers, "Record<string, unknown>")};
  static Result<void> check(const CreateConversation& create);
};

// POST /api/conversations/{id}/approvals/{approvalId}
enum class ApprovalDecision { allow, deny };
template <>
struct EnumShape<ApprovalDecision> {
  static constexpr std::string_view name = "ApprovalDecision";
  static constexpr std::string_view doc = "allow runs the call; deny gives the model the refusal.";
  static constexpr std::array values{std::pair{ApprovalDecision::allow, std::string_view("allow")},
                                     std::pair{ApprovalDecision::deny, std::string_view("deny")}};
};
enum class ApprovalScope { once, conversation, project };
template <>
struct EnumShape<ApprovalScope> {
  static constexpr std::string_view name = "ApprovalScope";
  static constexpr std::string_view doc =
      "once: this call; conversation: the rule for the rest of the conversation; project: the "
      "rule also written to the project's .ava/settings.local.json.";
  static constexpr std::array values{
      std::pair{ApprovalScope::once, std::string_view("once")},
      std::pair{ApprovalScope::conversation, std::string_view("conversation")},
      std::pair{ApprovalScope::project, std::string_view("project")}};
};
struct ApprovalDecisionRequest {
  ApprovalDecision decision = ApprovalDecision::deny;
  ApprovalScope scope = ApprovalScope::once;
  std::string rule;     // for conversation/project; empty: the first suggested rule
  std::string message;  // to the model
};
template <>
struct Shape<ApprovalDecisionRequest> {
  static constexpr std::string_view name = "ApprovalDecisionRequest";
  static constexpr std::string_view doc = "POST /api/conversations/{id}/approvals/{approvalId}";
  static constexpr auto fields =
      std::tuple{field("decision", &ApprovalDecisionRequest::decision),
                 omittable("scope", &ApprovalDecisionRequest::scope),
                 omittable("rule", &ApprovalDecisionRequest::rule),
                 omittable("message", &ApprovalDecisionRequest::message)};
  static Result<void> check(const ApprovalDecisionRequest& request);
};

// PUT /api/conversations/{id}/permissions
struct PermissionModeRequest {
  std::string mode;  // ask, accept-edits, plan, auto
};
template <>
struct Shape<PermissionModeRequest> {
  static constexpr std::string_view name = "PermissionModeRequest";
  static constexpr std::string_view doc = "PUT /api/conversations/{id}/permissions";
  static constexpr auto fields = std::tuple{field("mode", &PermissionModeRequest::mode)};
};

// PATCH /api/conversations/{id}: only the fields present change.
struct ConversationPatch {
  std::optional<std::string> title;
  std::optional<bool> pinned;
  std::optional<bool> archived;
  std::optional<std::int64_t> reviewed_seq;
  std::optional<ModelRef> model;  // set by PUT .../model, not by PATCH: not on the wire
};
template <>
struct Shape<ConversationPatch> {
  static constexpr std::string_view name = "ConversationPatch";
  static constexpr std::string_view doc = "PATCH /api/conversations/{id}";
  static constexpr auto fields = std::tuple{field("title", &ConversationPatch::title),
                                            field("pinned", &ConversationPatch::pinned),
                                            field("archived", &ConversationPatch::archived),
                                            field("reviewedSeq", &ConversationPatch::reviewed_seq)};
  static Result<void> check(const ConversationPatch& patch);
};

struct Attachment {
  std::string media_type;  // image/png, image/jpeg, image/gif, image/webp
  std::string data;        // base64
};
template <>
struct Shape<Attachment> {
  static constexpr std::string_view name = "Attachment";
  static constexpr std::string_view doc = "An image sent with input.";
  static constexpr std::string_view what = "an attachment";
  static constexpr auto fields =
      std::tuple{field("mediaType", &Attachment::media_type), field("data", &Attachment::data)};
};

// POST /api/conversations/{id}/input
enum class InputKind { followup, steer };
template <>
struct EnumShape<InputKind> {
  static constexpr std::string_view name = "InputKind";
  static constexpr std::string_view doc =
      "followup: the next turn; steer: the running turn's next step.";
  static constexpr std::array values{std::pair{InputKind::followup, std::string_view("followup")},
                                     std::pair{InputKind::steer, std::string_view("steer")}};
};

struct InputRequest {
  InputKind kind = InputKind::followup;
  std::string text;
  std::string input_id;  // optional, client-chosen: resending it is answered once
  std::vector<Attachment> attachments;
};
template <>
struct Shape<InputRequest> {
  static constexpr std::string_view name = "InputRequest";
  static constexpr std::string_view doc = "POST /api/conversations/{id}/input";
  static constexpr auto fields =
      std::tuple{omittable("kind", &InputRequest::kind), field("text", &InputRequest::text),
                 omittable("inputId", &InputRequest::input_id),
                 omittable("attachments", &InputRequest::attachments)};
  // Each image is checked before it becomes part of the conversation for
  // good: one bad image in the log would fail every later request of it.
  static Result<void> check(const InputRequest& input);
};

// 202 Accepted for an input, once it is durable.
struct InputAccepted {
  std::string input_id;
  std::int64_t seq = 0;
  bool duplicate = false;
  // /clear: the new conversation it started in the same project (the
  // input itself is not recorded in this one).
  std::optional<std::string> new_conversation_id;
};
template <>
struct Shape<InputAccepted> {
  static constexpr std::string_view name = "InputAccepted";
  static constexpr std::string_view doc =
      "202 for an input, once it is durable; 201 with newConversationId for /clear.";
  static constexpr auto fields =
      std::tuple{field("inputId", &InputAccepted::input_id), field("seq", &InputAccepted::seq),
                 field("duplicate", &InputAccepted::duplicate),
                 field("newConversationId", &InputAccepted::new_conversation_id)};
};

// PUT /api/settings/providers/{name}: fields left out keep their value, an
// empty string resets one to its default. The key is checked here (one
// printable token, no spaces) so a paste with a newline is refused rather
// than saved.
struct ProviderUpdateRequest {
  std::optional<std::string> kind;
  std::optional<std::string> base_url;
  std::optional<std::string> model;
  std::optional<std::string> api_key;
  std::optional<bool> make_default;  // true: settings.json "provider" names it
};
template <>
struct Shape<ProviderUpdateRequest> {
  static constexpr std::string_view name = "ProviderUpdate";
  static constexpr std::string_view doc =
      "PUT /api/settings/providers/{name} (empty string: back to the default)";
  static constexpr auto fields =
      std::tuple{field("kind", &ProviderUpdateRequest::kind),
                 field("baseUrl", &ProviderUpdateRequest::base_url),
                 field("model", &ProviderUpdateRequest::model),
                 field("apiKey", &ProviderUpdateRequest::api_key),
                 field("makeDefault", &ProviderUpdateRequest::make_default)};
  static Result<void> check(const ProviderUpdateRequest& update);
};

// PUT /api/skills/{name}: `enabled` must be present; null removes the
// switch. Without projectId the switch is the user-wide one.
struct SkillUpdateRequest {
  std::optional<bool> enabled;  // nullopt: remove the switch
  std::string project_id;
};
template <>
struct Shape<SkillUpdateRequest> {
  static constexpr std::string_view name = "SkillUpdate";
  static constexpr std::string_view doc =
      "PUT /api/skills/{name}: null removes the switch; no projectId: the user-wide one";
  static constexpr auto fields =
      std::tuple{required("enabled", &SkillUpdateRequest::enabled, "boolean | null"),
                 omittable("projectId", &SkillUpdateRequest::project_id)};
};

// POST /api/login: a one-time code traded for a session cookie.
struct LoginRequest {
  std::string code;
};
template <>
struct Shape<LoginRequest> {
  static constexpr std::string_view name = "LoginRequest";
  static constexpr std::string_view doc = "POST /api/login";
  static constexpr auto fields = std::tuple{field("code", &LoginRequest::code)};
  static Result<void> check(const LoginRequest& login);
};

// POST /api/tunnel-ports: the local port of an SSH tunnel to this server
// (`ava machine connect`), so a browser there may name it in Host and Origin;
// redirectPort: the loopback port on the tunnel's machine where that client
// takes OAuth sign-in redirects for sign-ins started through the tunnel.
struct TunnelPortRequest {
  std::int64_t port = 0;
  std::optional<std::int64_t> redirect_port;
};
template <>
struct Shape<TunnelPortRequest> {
  static constexpr std::string_view name = "TunnelPortRequest";
  static constexpr std::string_view doc = "POST /api/tunnel-ports";
  static constexpr auto fields =
      std::tuple{field("port", &TunnelPortRequest::port),
                 omittable("redirectPort", &TunnelPortRequest::redirect_port)};
  static Result<void> check(const TunnelPortRequest& request);
};

// POST /api/mcp/sign-in-callback: the query of a sign-in redirect a
// tunnel's client took on its machine ("code=...&state=...&iss=...").
struct SignInCallbackRequest {
  std::string query;
};
template <>
struct Shape<SignInCallbackRequest> {
  static constexpr std::string_view name = "SignInCallbackRequest";
  static constexpr std::string_view doc = "POST /api/mcp/sign-in-callback";
  static constexpr auto fields = std::tuple{field("query", &SignInCallbackRequest::query)};
  static Result<void> check(const SignInCallbackRequest& request);
};

// POST /api/shutdown: at once (no body), or once no turn runs (`whenIdle`),
// waiting at most maxWaitMs (default 10 minutes) before taking turns again.
struct ShutdownRequest {
  std::optional<bool> when_idle;
  std::optional<std::int64_t> max_wait_ms;
};
template <>
struct Shape<ShutdownRequest> {
  static constexpr std::string_view name = "ShutdownRequest";
  static constexpr std::string_view doc = "POST /api/shutdown";
  static constexpr auto fields = std::tuple{field("whenIdle", &ShutdownRequest::when_idle),
                                            field("maxWaitMs", &ShutdownRequest::max_wait_ms)};
  static Result<void> check(const ShutdownRequest& request);
};

// GET /api/projects/{id}/terminal (a WebSocket): binary messages carry the
// terminal's bytes both ways; text messages are control, this one from the
// viewer: "resize" (cols and rows, in cells), "pause" (the viewer is behind:
// stop sending output, so the shell waits) and "resume".
struct TerminalControl {
  std::string type;
  std::optional<std::int64_t> cols;
  std::optional<std::int64_t> rows;
};
template <>
struct Shape<TerminalControl> {
  static constexpr std::string_view name = "TerminalControl";
  static constexpr std::string_view doc =
      "A text message to GET /api/projects/{id}/terminal from the viewer";
  static constexpr auto fields =
      std::tuple{field("type", &TerminalControl::type, R"("resize" | "pause" | "resume")"),
                 field("cols", &TerminalControl::cols), field("rows", &TerminalControl::rows)};
  static Result<void> check(const TerminalControl& control);
};
// Columns and rows a terminal may have (the query's cols/rows and resizes).
inline constexpr std::int64_t max_terminal_cells = 1000;

// The request parsers the routes call: from_json with what each body is
// called in messages, plus the rules a table cannot say.
Result<CreateConversation> parse_create_conversation(const nlohmann::json& json);
Result<ConversationPatch> parse_conversation_patch(const nlohmann::json& json);
Result<InputRequest> parse_input_request(const nlohmann::json& json);
Result<CreateProject> parse_create_project(const nlohmann::json& json);
Result<ModelRef> parse_model_ref(const nlohmann::json& json);
Result<ApprovalDecisionRequest> parse_approval_decision(const nlohmann::json& json);
Result<PermissionModeRequest> parse_permission_mode(const nlohmann::json& json);
Result<ProviderUpdateRequest> parse_provider_update(const nlohmann::json& json);
// `enabled` must be present (null is a value here: remove the switch).
Result<SkillUpdateRequest> parse_skill_update(const nlohmann::json& json);
// web.json's records (the registry).
Result<Project> project_from_json(const nlohmann::json& json);
Result<Conversation> conversation_from_json(const nlohmann::json& json);

}  // namespace ava::protocol
