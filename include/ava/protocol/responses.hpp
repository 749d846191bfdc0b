#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ava/protocol/shape.hpp"
#include "ava/protocol/wire.hpp"

// What the API's routes answer and what the status stream sends (docs/api.md),
// each from its Shape table like the requests in wire.hpp. The server fills
// these from its packages' types; nothing else spells the field names.
namespace ava::protocol {

// Usage as a driver reports it (the log's "usage" events, summed). The wire
// form of content::Usage: protocol depends on base alone, so the server
// copies the five counts across (server::driver_status).
struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  std::int64_t reasoning_tokens = 0;
};
template <>
struct Shape<Usage> {
  static constexpr std::string_view name = "Usage";
  static constexpr std::string_view doc = "Usage as a driver reports it.";
  static constexpr auto fields = std::tuple{field("inputTokens", &Usage::input_tokens),
                                            field("outputTokens", &Usage::output_tokens),
                                            field("cacheReadTokens", &Usage::cache_read_tokens),
                                            field("cacheWriteTokens", &Usage::cache_write_tokens),
                                            field("reasoningTokens", &Usage::reasoning_tokens)};
};

// A tool call waiting for a person (the approval_requested event's fields).
struct PendingApproval {
  std::string approval_id;
  std::string turn_id;
  std::int64_t step = 0;
  std::string call_id;
  std::string tool_name;
  nlohmann::json arguments = nlohmann::json::object();
  std::string category;
  std::string reason;
  std::string rule;
  std::vector<std::string> suggested_rules;
};
template <>
struct Shape<PendingApproval> {
  static constexpr std::string_view name = "PendingApproval";
  static constexpr std::string_view doc = "A tool call waiting for a person's approval.";
  static constexpr auto fields =
      std::tuple{field("approvalId", &PendingApproval::approval_id),
                 field("turnId", &PendingApproval::turn_id),
                 field("step", &PendingApproval::step),
                 field("callId", &PendingApproval::call_id),
                 field("toolName", &PendingApproval::tool_name),
                 field("arguments", &PendingApproval::arguments, "Record<string, unknown>"),
                 field("category", &PendingApproval::category),
                 field("reason", &PendingApproval::reason),
                 field("rule", &PendingApproval::rule),
                 field("suggestedRules", &PendingApproval::suggested_rules)};
};

struct DriverStatus {
  std::string state;  // a DriverState: idle, running, waiting, pausing, paused, aborting, closed
  std::string session_id;
  std::string provider;
  std::string model;
  std::string turn_id;
  std::int64_t step = 0;
  std::int64_t pending_inputs = 0;
  std::string activity;
  Usage usage;
  std::int64_t last_seq = 0;
  std::string last_error;
  std::vector<PendingApproval> approvals;
  std::string permission_mode;  // empty: no permission checks
  std::string sandbox;          // read-only, workspace-write, off, unavailable
  std::string goal;             // set by /goal; empty when none
};
template <>
struct Shape<DriverStatus> {
  static constexpr std::string_view name = "DriverStatus";
  static constexpr std::string_view doc = "A loaded conversation's driver, provider-neutral.";
  static constexpr auto fields = std::tuple{field("state", &DriverStatus::state, "DriverState"),
                                            field("sessionId", &DriverStatus::session_id),
                                            field("provider", &DriverStatus::provider),
                                            field("model", &DriverStatus::model),
                                            field("turnId", &DriverStatus::turn_id),
                                            field("step", &DriverStatus::step),
                                            field("pendingInputs", &DriverStatus::pending_inputs),
                                            field("activity", &DriverStatus::activity),
                                            field("usage", &DriverStatus::usage),
                                            field("lastSeq", &DriverStatus::last_seq),
                                            field("lastError", &DriverStatus::last_error),
                                            field("approvals", &DriverStatus::approvals),
                                            field("permissionMode", &DriverStatus::permission_mode),
                                            field("sandbox", &DriverStatus::sandbox),
                                            field("goal", &DriverStatus::goal)};
};

// One rule in force, and where it was written.
struct PermissionRule {
  std::string list;  // allow, ask, deny
  std::string rule;
  std::string source;  // a settings file, a flag, or "this conversation"
};
template <>
struct Shape<PermissionRule> {
  static constexpr std::string_view name = "PermissionRule";
  static constexpr std::string_view doc = "A permission rule in force and its source.";
  static constexpr auto fields =
      std::tuple{field("list", &PermissionRule::list, R"("allow" | "ask" | "deny")"),
                 field("rule", &PermissionRule::rule), field("source", &PermissionRule::source)};
};

// GET /api/conversations/{id}/permissions
struct PermissionsView {
  std::string mode;
  std::string mode_source;
  std::string sandbox;
  std::string sandbox_support;        // what the kernel offers, in words
  std::vector<PermissionRule> rules;  // deny first: the order they are checked in
};
template <>
struct Shape<PermissionsView> {
  static constexpr std::string_view name = "PermissionsView";
  static constexpr std::string_view doc = "GET /api/conversations/{id}/permissions";
  static constexpr auto fields = std::tuple{
      field("mode", &PermissionsView::mode), field("modeSource", &PermissionsView::mode_source),
      field("sandbox", &PermissionsView::sandbox),
      field("sandboxSupport", &PermissionsView::sandbox_support),
      field("rules", &PermissionsView::rules)};
};

// A driver with the conversation it belongs to (the status stream's
// snapshot, GET /api/status).
struct LoadedDriver {
  DriverStatus status;
  std::string conversation_id;
};
template <>
struct Shape<LoadedDriver> {
  static constexpr std::string_view name = "LoadedDriver";
  static constexpr std::string_view doc = "A loaded conversation's driver and its conversation.";
  using extends = DriverStatus;
  static constexpr auto base = &LoadedDriver::status;
  static constexpr auto fields =
      std::tuple{field("conversationId", &LoadedDriver::conversation_id)};
};

struct ConversationView {
  Conversation conversation;
  bool loaded = false;
  std::string state = "idle";          // a DriverState
  std::optional<DriverStatus> status;  // GET /api/conversations/{id} of a loaded one
};
template <>
struct Shape<ConversationView> {
  static constexpr std::string_view name = "ConversationView";
  static constexpr std::string_view doc =
      "A conversation as the API lists it: metadata plus whether it is loaded.";
  using extends = Conversation;
  static constexpr auto base = &ConversationView::conversation;
  static constexpr auto fields = std::tuple{field("loaded", &ConversationView::loaded),
                                            field("state", &ConversationView::state, "DriverState"),
                                            field("status", &ConversationView::status)};
};

struct ConversationList {
  std::vector<ConversationView> conversations;
};
template <>
struct Shape<ConversationList> {
  static constexpr std::string_view name = "ConversationList";
  static constexpr std::string_view doc = "GET /api/conversations";
  static constexpr auto fields =
      std::tuple{field("conversations", &ConversationList::conversations)};
};

struct ProjectList {
  std::vector<Project> projects;
};
template <>
struct Shape<ProjectList> {
  static constexpr std::string_view name = "ProjectList";
  static constexpr std::string_view doc = "GET /api/projects";
  static constexpr auto fields = std::tuple{field("projects", &ProjectList::projects)};
};

// 202 for POST /api/shutdown: the server stops once the answer is sent, or
// (whenIdle) once no turn runs.
struct Stopping {
  bool stopping = true;
  bool when_idle = false;
};
template <>
struct Shape<Stopping> {
  static constexpr std::string_view name = "Stopping";
  static constexpr std::string_view doc = "POST /api/shutdown (bearer token only)";
  static constexpr auto fields =
      std::tuple{field("stopping", &Stopping::stopping), field("whenIdle", &Stopping::when_idle)};
};

// DELETE answers.
struct Removed {
  bool removed = true;
};
template <>
struct Shape<Removed> {
  static constexpr std::string_view name = "Removed";
  static constexpr std::string_view doc =
      "DELETE /api/projects/{id}, DELETE /api/conversations/{id}, DELETE /api/mcp/servers/{name}";
  static constexpr auto fields = std::tuple{field("removed", &Removed::removed)};
};

struct ContextFileInfo {
  std::string path;
  std::string scope;  // project, user, local
  std::int64_t bytes = 0;
  std::int64_t included = 0;  // less than bytes: cut to the budget
};
template <>
struct Shape<ContextFileInfo> {
  static constexpr std::string_view name = "ContextFileInfo";
  static constexpr std::string_view doc = "An AGENTS.md-like file read into the system prompt";
  static constexpr auto fields = std::tuple{
      field("path", &ContextFileInfo::path), field("scope", &ContextFileInfo::scope),
      field("bytes", &ContextFileInfo::bytes), field("included", &ContextFileInfo::included)};
};

struct ContextReport {
  std::int64_t messages = 0;
  std::int64_t estimated_tokens = 0;
  std::int64_t context_window = 0;
  std::int64_t system_prompt_chars = 0;
  std::int64_t tool_schema_chars = 0;
  std::int64_t compactions = 0;
  std::vector<std::string> pending_inputs;  // their input ids
  std::vector<std::string> unpaired_calls;  // tool call ids without a result
  std::vector<ContextFileInfo> context_files;
};
template <>
struct Shape<ContextReport> {
  static constexpr std::string_view name = "ContextReport";
  static constexpr std::string_view doc =
      "GET /api/conversations/{id}/context: what the next request would carry";
  static constexpr auto fields =
      std::tuple{field("messages", &ContextReport::messages),
                 field("estimatedTokens", &ContextReport::estimated_tokens),
                 field("contextWindow", &ContextReport::context_window),
                 field("systemPromptChars", &ContextReport::system_prompt_chars),
                 field("toolSchemaChars", &ContextReport::tool_schema_chars),
                 field("compactions", &ContextReport::compactions),
                 field("pendingInputs", &ContextReport::pending_inputs),
                 field("unpairedCalls", &ContextReport::unpaired_calls),
                 field("contextFiles", &ContextReport::context_files)};
};

struct SlashCommandInfo {
  std::string name;
  std::string description;
  std::string argument_hint;
  std::string scope;  // user, project
};
template <>
struct Shape<SlashCommandInfo> {
  static constexpr std::string_view name = "SlashCommandInfo";
  static constexpr std::string_view doc = "A slash command the composer can complete";
  static constexpr auto fields = std::tuple{field("name", &SlashCommandInfo::name),
                                            field("description", &SlashCommandInfo::description),
                                            field("argumentHint", &SlashCommandInfo::argument_hint),
                                            field("scope", &SlashCommandInfo::scope)};
};

struct SlashCommandList {
  std::vector<SlashCommandInfo> commands;
};
template <>
struct Shape<SlashCommandList> {
  static constexpr std::string_view name = "SlashCommandList";
  static constexpr std::string_view doc = "GET /api/conversations/{id}/commands";
  static constexpr auto fields = std::tuple{field("commands", &SlashCommandList::commands)};
};

struct Health {
  bool ok = true;
  std::string mode;  // "backend" or "serve"
  std::string version;
  std::string machine_id;
  std::int64_t pid = 0;
  std::int64_t started_ms = 0;
};
template <>
struct Shape<Health> {
  static constexpr std::string_view name = "Health";
  static constexpr std::string_view doc = "GET /api/health";
  static constexpr auto fields = std::tuple{
      field("ok", &Health::ok),           field("mode", &Health::mode, R"("backend" | "serve")"),
      field("version", &Health::version), field("machineId", &Health::machine_id),
      field("pid", &Health::pid),         field("startedMs", &Health::started_ms)};
};

struct MachineInfo {
  std::string machine_id;
  std::string hostname;
  std::int64_t created_ms = 0;
};
template <>
struct Shape<MachineInfo> {
  static constexpr std::string_view name = "MachineInfo";
  static constexpr std::string_view doc = "GET /api/machine: this execution machine's identity";
  static constexpr auto fields = std::tuple{field("machineId", &MachineInfo::machine_id),
                                            field("hostname", &MachineInfo::hostname),
                                            field("createdMs", &MachineInfo::created_ms)};
};

struct ProcessStatus {
  std::string mode;  // "backend" or "serve"
  std::int64_t pid = 0;
  std::int64_t conversations = 0;
  std::vector<LoadedDriver> loaded;
  std::int64_t active = 0;  // loaded drivers neither idle nor closed
  // POST /api/shutdown {"whenIdle": true} is waiting for running turns to
  // end (an update); new inputs are refused meanwhile.
  bool restart_pending = false;
};
template <>
struct Shape<ProcessStatus> {
  static constexpr std::string_view name = "ProcessStatus";
  static constexpr std::string_view doc = "GET /api/status: the process and its loaded drivers";
  static constexpr auto fields =
      std::tuple{field("mode", &ProcessStatus::mode, R"("backend" | "serve")"),
                 field("pid", &ProcessStatus::pid),
                 field("conversations", &ProcessStatus::conversations),
                 field("loaded", &ProcessStatus::loaded),
                 field("active", &ProcessStatus::active),
                 field("restartPending", &ProcessStatus::restart_pending)};
};

struct ConversationUsage {
  std::string conversation_id;
  TokenTotals usage;
  std::optional<double> cost_usd;  // when the model's prices are known
};
template <>
struct Shape<ConversationUsage> {
  static constexpr std::string_view name = "ConversationUsage";
  static constexpr std::string_view doc = "GET /api/conversations/{id}/usage";
  static constexpr auto fields = std::tuple{
      field("conversationId", &ConversationUsage::conversation_id),
      field("usage", &ConversationUsage::usage), field("costUsd", &ConversationUsage::cost_usd)};
};

struct UsageSummary {
  TokenTotals total;
  std::vector<ConversationUsage> conversations;
};
template <>
struct Shape<UsageSummary> {
  static constexpr std::string_view name = "UsageSummary";
  static constexpr std::string_view doc = "GET /api/usage: every conversation's totals";
  static constexpr auto fields = std::tuple{field("total", &UsageSummary::total),
                                            field("conversations", &UsageSummary::conversations)};
};

struct LoginCode {
  std::string code;
  std::string url;
  std::int64_t expires_in_ms = 0;
};
template <>
struct Shape<LoginCode> {
  static constexpr std::string_view name = "LoginCode";
  static constexpr std::string_view doc =
      "POST /api/login-codes: a one-time browser login link (bearer token only)";
  static constexpr auto fields =
      std::tuple{field("code", &LoginCode::code), field("url", &LoginCode::url),
                 field("expiresInMs", &LoginCode::expires_in_ms)};
};

// ---- models and settings ----

struct ProviderInfo {
  std::string name;
  std::optional<std::string> kind;
  std::optional<std::string> base_url;
  std::optional<std::string> model;
  bool configured = false;  // usable: runs locally, or a key is set
  bool key_saved = false;   // auth.json holds a key for it
  std::optional<std::string> key_variable;
  std::optional<std::string> problem;  // why it cannot be resolved
};
template <>
struct Shape<ProviderInfo> {
  static constexpr std::string_view name = "ProviderInfo";
  static constexpr std::string_view doc = "GET /api/models: a provider (never its key)";
  static constexpr auto fields = std::tuple{field("name", &ProviderInfo::name),
                                            field("kind", &ProviderInfo::kind),
                                            field("baseUrl", &ProviderInfo::base_url),
                                            field("model", &ProviderInfo::model),
                                            field("configured", &ProviderInfo::configured),
                                            omittable("keySaved", &ProviderInfo::key_saved),
                                            field("keyVariable", &ProviderInfo::key_variable),
                                            field("problem", &ProviderInfo::problem)};
};

struct CatalogModel {
  std::string id;
  std::string provider_kind;
  std::int64_t context_window = 0;
  std::int64_t max_output = 0;
  double input_per_mtok = 0;
  double output_per_mtok = 0;
  bool tools = false;
  bool images = false;
  bool thinking = false;
};
template <>
struct Shape<CatalogModel> {
  static constexpr std::string_view name = "CatalogModel";
  static constexpr std::string_view doc = "GET /api/models: a catalog entry";
  static constexpr auto fields = std::tuple{field("id", &CatalogModel::id),
                                            field("providerKind", &CatalogModel::provider_kind),
                                            field("contextWindow", &CatalogModel::context_window),
                                            field("maxOutput", &CatalogModel::max_output),
                                            field("inputPerMTok", &CatalogModel::input_per_mtok),
                                            field("outputPerMTok", &CatalogModel::output_per_mtok),
                                            field("tools", &CatalogModel::tools),
                                            field("images", &CatalogModel::images),
                                            field("thinking", &CatalogModel::thinking)};
};

// A model server found running on this machine (Ollama, LM Studio,
// llama.cpp) though no setting names it.
struct DetectedServer {
  std::string name;
  std::string kind;
  std::string base_url;
  std::vector<std::string> models;
  bool in_use = false;  // nothing is configured, so new conversations use it
};
template <>
struct Shape<DetectedServer> {
  static constexpr std::string_view name = "DetectedServer";
  static constexpr std::string_view doc =
      "GET /api/models: a local model server found running, not configured";
  static constexpr auto fields =
      std::tuple{field("name", &DetectedServer::name), field("kind", &DetectedServer::kind),
                 field("baseUrl", &DetectedServer::base_url),
                 field("models", &DetectedServer::models), field("inUse", &DetectedServer::in_use)};
};

struct ModelsResponse {
  std::string default_provider;
  std::vector<ProviderInfo> providers;
  std::vector<CatalogModel> models;
  bool needs_setup = false;  // no provider is configured: the first-run panel
  std::vector<DetectedServer> detected;
};
template <>
struct Shape<ModelsResponse> {
  static constexpr std::string_view name = "ModelsResponse";
  static constexpr std::string_view doc = "GET /api/models";
  static constexpr auto fields = std::tuple{
      field("defaultProvider", &ModelsResponse::default_provider),
      field("providers", &ModelsResponse::providers), field("models", &ModelsResponse::models),
      field("needsSetup", &ModelsResponse::needs_setup),
      field("detected", &ModelsResponse::detected)};
};

// A model's limits as settings.json overrides them.
struct ModelOverride {
  std::optional<std::int64_t> context_window;
  std::optional<std::int64_t> max_output;
};
template <>
struct Shape<ModelOverride> {
  static constexpr std::string_view name = "ModelOverride";
  static constexpr std::string_view doc = "A model's limits as settings.json overrides them.";
  static constexpr auto fields = std::tuple{field("contextWindow", &ModelOverride::context_window),
                                            field("maxOutput", &ModelOverride::max_output)};
};

struct SettingsResponse {
  std::string provider;
  std::string model;
  std::map<std::string, ModelOverride> models;
  std::vector<std::string> saved_keys;  // provider names with a key in auth.json
  std::string settings_file;
};
template <>
struct Shape<SettingsResponse> {
  static constexpr std::string_view name = "SettingsResponse";
  static constexpr std::string_view doc = "GET /api/settings";
  static constexpr auto fields = std::tuple{
      field("provider", &SettingsResponse::provider), field("model", &SettingsResponse::model),
      field("models", &SettingsResponse::models), field("savedKeys", &SettingsResponse::saved_keys),
      field("settingsFile", &SettingsResponse::settings_file)};
};

// ---- the status stream (/api/status/events): the present, not history ----

struct StateMessage {
  std::string type = "state";
  std::string conversation_id;
  std::string state;  // a DriverState
};
template <>
struct Shape<StateMessage> {
  static constexpr std::string_view name = "StateMessage";
  static constexpr std::string_view doc = "status stream: a driver changed state";
  static constexpr auto fields = std::tuple{field("type", &StateMessage::type, R"("state")"),
                                            field("conversationId", &StateMessage::conversation_id),
                                            field("state", &StateMessage::state, "DriverState")};
};

struct DeltaMessage {
  std::string type = "delta";  // or "thinking"
  std::string conversation_id;
  std::string turn_id;
  std::int64_t step = 0;
  std::string text;
};
template <>
struct Shape<DeltaMessage> {
  static constexpr std::string_view name = "DeltaMessage";
  static constexpr std::string_view doc =
      "status stream: streamed answer (delta) or reasoning (thinking) text";
  static constexpr auto fields =
      std::tuple{field("type", &DeltaMessage::type, R"("delta" | "thinking")"),
                 field("conversationId", &DeltaMessage::conversation_id),
                 field("turnId", &DeltaMessage::turn_id), field("step", &DeltaMessage::step),
                 field("text", &DeltaMessage::text)};
};

struct ToolMessage {
  std::string type = "tool";
  std::string conversation_id;
  std::string turn_id;
  std::string call_id;
  std::string tool_name;
  std::string label;
  bool finished = false;
};
template <>
struct Shape<ToolMessage> {
  static constexpr std::string_view name = "ToolMessage";
  static constexpr std::string_view doc = "status stream: tool activity";
  static constexpr auto fields = std::tuple{field("type", &ToolMessage::type, R"("tool")"),
                                            field("conversationId", &ToolMessage::conversation_id),
                                            field("turnId", &ToolMessage::turn_id),
                                            field("callId", &ToolMessage::call_id),
                                            field("toolName", &ToolMessage::tool_name),
                                            field("label", &ToolMessage::label),
                                            field("finished", &ToolMessage::finished)};
};

struct SummaryMessage {
  std::string type = "summary";
  std::string conversation_id;
  std::int64_t updated_ms = 0;
  std::int64_t last_seq = 0;
  TokenTotals usage;
  std::string last_error;
};
template <>
struct Shape<SummaryMessage> {
  static constexpr std::string_view name = "SummaryMessage";
  static constexpr std::string_view doc = "status stream: a turn ended";
  static constexpr auto fields =
      std::tuple{field("type", &SummaryMessage::type, R"("summary")"),
                 field("conversationId", &SummaryMessage::conversation_id),
                 field("updatedMs", &SummaryMessage::updated_ms),
                 field("lastSeq", &SummaryMessage::last_seq),
                 field("usage", &SummaryMessage::usage),
                 field("lastError", &SummaryMessage::last_error)};
};

struct CatalogMessage {
  std::string type = "catalog";
  std::string action;  // created, updated, deleted, project, provider
  std::optional<ConversationView> conversation;
  std::optional<Project> project;
  std::optional<ProviderInfo> provider;
};
template <>
struct Shape<CatalogMessage> {
  static constexpr std::string_view name = "CatalogMessage";
  static constexpr std::string_view doc = "status stream: the catalog changed";
  static constexpr auto fields = std::tuple{
      field("type", &CatalogMessage::type, R"("catalog")"),
      field("action", &CatalogMessage::action,
            R"("created" | "updated" | "deleted" | "project" | "provider")"),
      field("conversation", &CatalogMessage::conversation),
      field("project", &CatalogMessage::project), field("provider", &CatalogMessage::provider)};
};

struct SnapshotMessage {
  std::string type = "snapshot";
  std::vector<LoadedDriver> conversations;
};
template <>
struct Shape<SnapshotMessage> {
  static constexpr std::string_view name = "SnapshotMessage";
  static constexpr std::string_view doc = "status stream: first message, every loaded conversation";
  static constexpr auto fields =
      std::tuple{field("type", &SnapshotMessage::type, R"("snapshot")"),
                 field("conversations", &SnapshotMessage::conversations)};
};

// The last text message of GET /api/projects/{id}/terminal: the shell ended.
struct TerminalExit {
  std::string type = "exit";
  std::int64_t code = 0;    // the exit code when signal is 0
  std::int64_t signal = 0;  // the signal that ended the shell, else 0
  std::string message;      // "exit code 0", "killed by signal 9 (KILL)"
};
template <>
struct Shape<TerminalExit> {
  static constexpr std::string_view name = "TerminalExit";
  static constexpr std::string_view doc =
      "The last text message of GET /api/projects/{id}/terminal: how the shell ended";
  static constexpr auto fields = std::tuple{
      field("type", &TerminalExit::type, R"("exit")"), field("code", &TerminalExit::code),
      field("signal", &TerminalExit::signal), field("message", &TerminalExit::message)};
};

}  // namespace ava::protocol
