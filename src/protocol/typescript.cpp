#include "ava/protocol/typescript.hpp"

#include "ava/protocol/analytics.hpp"
#include "ava/protocol/automations.hpp"
#include "ava/protocol/capabilities.hpp"
#include "ava/protocol/files.hpp"
#include "ava/protocol/responses.hpp"
#include "ava/protocol/wire.hpp"

namespace ava::protocol {
namespace {

FieldShape required_field(std::string name, std::string type) {
  return {std::move(name), std::move(type), false};
}
FieldShape optional_field(std::string name, std::string type) {
  return {std::move(name), std::move(type), true};
}

std::vector<ObjectShape> build_objects() {
  return {
      object_shape<ErrorDetail>(),
      object_shape<ApiError>(),
      object_shape<ModelRef>(),
      object_shape<Project>(),
      object_shape<TokenTotals>(),
      object_shape<Conversation>(),
      object_shape<ConversationView>(),
      object_shape<CreateProject>(),
      object_shape<CreateConversation>(),
      object_shape<ConversationPatch>(),
      object_shape<Attachment>(),
      object_shape<InputRequest>(),
      object_shape<InputAccepted>(),
      object_shape<Usage>(),
      object_shape<DriverStatus>(),
      object_shape<LoadedDriver>(),
      object_shape<Health>(),
      object_shape<MachineInfo>(),
      object_shape<ProcessStatus>(),
      object_shape<ContextReport>(),
      object_shape<LoginCode>(),
      object_shape<Removed>(),
      object_shape<Stopping>(),
      object_shape<LoginRequest>(),
      object_shape<TunnelPortRequest>(),
      object_shape<SignInCallbackRequest>(),
      object_shape<ShutdownRequest>(),
      object_shape<TerminalControl>(),
      object_shape<TerminalExit>(),
      object_shape<FileEntry>(),
      object_shape<FileListing>(),
      object_shape<FilePreview>(),
      object_shape<FileMatch>(),
      object_shape<FileMatches>(),
      object_shape<FileChanges>(),
      object_shape<FileWatchReady>(),
      // The durable events of /api/conversations/{id}/events: the log's own JSON.
      {"EventBase",
       "Fields every durable event has.",
       {required_field("type", "string"), required_field("seq", "number"),
        required_field("ts", "number")}},
      {"ContentBlock",
       "A block of a message or tool result.",
       {required_field("type",
                       "\"text\" | \"thinking\" | \"tool_call\" | \"tool_result\" | \"image\""),
        optional_field("text", "string"), optional_field("id", "string"),
        optional_field("name", "string"), optional_field("arguments", "string"),
        optional_field("media_type", "string"), optional_field("data", "string"),
        optional_field("signature", "string"), optional_field("redacted_data", "string"),
        optional_field("encrypted_content", "string"), optional_field("provider_id", "string"),
        optional_field("call_id", "string"), optional_field("is_error", "boolean"),
        optional_field("content", "ContentBlock[]")}},
      {"SessionStartEvent",
       "session_start",
       {required_field("session_id", "string"), required_field("provider", "string"),
        required_field("model", "string"), required_field("cwd", "string"),
        required_field("version", "string"), optional_field("parent_session_id", "string"),
        optional_field("parent_call_id", "string")},
       "EventBase"},
      {"InputEvent",
       "input: acknowledged user input",
       {required_field("input_id", "string"), required_field("kind", "InputKind"),
        required_field("text", "string"), optional_field("attachments", "ContentBlock[]"),
        optional_field("command", "string"), optional_field("expansion", "string"),
        optional_field("allowed_tools", "string[]"),
        optional_field("allowed_tools_unasked", "boolean"), optional_field("plan", "boolean"),
        optional_field("model", "string")},
       "EventBase"},
      {"InputClaimedEvent",
       "input_claimed: inputs a step took",
       {required_field("input_ids", "string[]"), required_field("turn_id", "string"),
        required_field("step", "number")},
       "EventBase"},
      {"InputBlockedEvent",
       "input_blocked: input a UserPromptSubmit hook refused; it never reaches the model",
       {required_field("input_id", "string"), required_field("hook", "string"),
        optional_field("reason", "string")},
       "EventBase"},
      {"TurnStartEvent", "turn_start", {required_field("turn_id", "string")}, "EventBase"},
      {"TurnEndEvent",
       "turn_end",
       {required_field("turn_id", "string"), required_field("reason", "string"),
        optional_field("message", "string")},
       "EventBase"},
      {"StepStartEvent",
       "step_start",
       {required_field("turn_id", "string"), required_field("step", "number"),
        required_field("model", "string")},
       "EventBase"},
      {"StepEndEvent",
       "step_end",
       {required_field("turn_id", "string"), required_field("step", "number"),
        required_field("reason", "string"), optional_field("stop_reason", "string")},
       "EventBase"},
      {"AssistantEvent",
       "assistant: one step's model output",
       {required_field("turn_id", "string"), required_field("step", "number"),
        required_field("content", "ContentBlock[]")},
       "EventBase"},
      {"ToolResultEvent",
       "tool_result: what a tool call returned",
       {required_field("turn_id", "string"), required_field("step", "number"),
        required_field("call_id", "string"), required_field("tool_name", "string"),
        required_field("status", "\"ok\" | \"error\" | \"interrupted\" | \"skipped\""),
        required_field("content", "ContentBlock[]"),
        optional_field("details", "Record<string, unknown>")},
       "EventBase"},
      {"LogUsage",
       "Token usage as the log records it.",
       {required_field("input_tokens", "number"), required_field("output_tokens", "number"),
        required_field("cache_read_tokens", "number"),
        required_field("cache_write_tokens", "number"),
        required_field("reasoning_tokens", "number")}},
      {"UsageEvent",
       "usage: what one step used",
       {required_field("turn_id", "string"), required_field("step", "number"),
        required_field("model", "string"), required_field("usage", "LogUsage"),
        optional_field("subagent", "string"), optional_field("first_token_ms", "number"),
        optional_field("duration_ms", "number")},
       "EventBase"},
      {"ModelChangedEvent",
       "model_changed",
       {required_field("provider", "string"), required_field("model", "string")},
       "EventBase"},
      {"CompactionEvent",
       "compaction: earlier turns summarized",
       {required_field("summary", "string"), required_field("first_kept_seq", "number"),
        required_field("tokens_before", "number")},
       "EventBase"},
      {"ErrorEvent",
       "error: a failed turn or step",
       {optional_field("turn_id", "string"), required_field("code", "string"),
        required_field("message", "string")},
       "EventBase"},
      {"RecoveredEvent",
       "recovered: what recovery repaired",
       {required_field("dropped_bytes", "number"), optional_field("torn_file", "string"),
        required_field("notes", "string[]")},
       "EventBase"},
      {"ApprovalRequestedEvent",
       "approval_requested: a tool call waits for a person (docs/permissions.md)",
       {required_field("approval_id", "string"), required_field("turn_id", "string"),
        required_field("step", "number"), required_field("call_id", "string"),
        required_field("tool_name", "string"),
        required_field("arguments", "Record<string, unknown>"),
        required_field("category", "string"), required_field("reason", "string"),
        optional_field("rule", "string"), required_field("suggested_rules", "string[]")},
       "EventBase"},
      {"ApprovalDecidedEvent",
       "approval_decided: a person's answer",
       {required_field("approval_id", "string"), required_field("call_id", "string"),
        required_field("decision", "\"allow\" | \"deny\""),
        required_field("scope", "\"once\" | \"conversation\" | \"project\""),
        optional_field("rule", "string"), optional_field("message", "string")},
       "EventBase"},
      {"PermissionModeEvent",
       "permission_mode: the mode a person chose for the conversation",
       {required_field("mode", "string")},
       "EventBase"},
      {"GoalSetEvent",
       "goal_set: the goal /goal set (reminded at every turn); empty clears it",
       {required_field("goal", "string")},
       "EventBase"},
      {"CommandOutputEvent",
       "command_output: a built-in slash command the agent answered itself (never the model's)",
       {required_field("input_id", "string"), required_field("text", "string"),
        required_field("command", "string"), required_field("output", "string")},
       "EventBase"},
      {"HookEvent",
       "hook: one hook command's run",
       {required_field("hook", "string"), required_field("command", "string"),
        optional_field("turn_id", "string"), optional_field("call_id", "string"),
        required_field("duration_ms", "number"), required_field("outcome", "string"),
        required_field("exit_code", "number"), optional_field("reason", "string"),
        optional_field("output", "string")},
       "EventBase"},
      // Permissions of a conversation.
      object_shape<PendingApproval>(),
      object_shape<ApprovalDecisionRequest>(),
      object_shape<PermissionModeRequest>(),
      object_shape<PermissionRule>(),
      object_shape<PermissionsView>(),
      // Lists, models and settings, usage.
      object_shape<ProjectList>(),
      object_shape<ConversationList>(),
      object_shape<ProviderInfo>(),
      object_shape<CatalogModel>(),
      object_shape<DetectedServer>(),
      object_shape<ModelsResponse>(),
      object_shape<ModelOverride>(),
      object_shape<SettingsResponse>(),
      object_shape<ProviderUpdateRequest>(),
      object_shape<ConversationUsage>(),
      object_shape<UsageSummary>(),
      // MCP servers (/api/mcp/servers): secrets (env, header values) come back redacted.
      object_shape<ContextFileInfo>(),
      object_shape<SlashCommandInfo>(),
      object_shape<SlashCommandList>(),
      // Automations (/api/automations).
      object_shape<AutomationRequest>(),
      object_shape<OccurrenceView>(),
      object_shape<AutomationView>(),
      object_shape<AutomationList>(),
      object_shape<OccurrenceList>(),
      object_shape<SchedulePreview>(),
      object_shape<AutomationMessage>(),
      // Analytics (/api/analytics).
      object_shape<UsageBucket>(),
      object_shape<ToolStats>(),
      object_shape<AnalyticsSummary>(),
      object_shape<McpServer>(),
      object_shape<McpOAuthClient>(),
      object_shape<McpSandbox>(),
      object_shape<McpServerList>(),
      {"CreateMcpServer",
       "POST /api/mcp/servers (also the mcpServers entry shape)",
       {required_field("name", "string"), optional_field("type", "\"stdio\" | \"http\""),
        optional_field("command", "string"), optional_field("args", "string[]"),
        optional_field("env", "Record<string, string>"), optional_field("cwd", "string"),
        optional_field("url", "string"), optional_field("headers", "Record<string, string>"),
        optional_field("oauth", "McpOAuthClient"), optional_field("enabled", "boolean"),
        optional_field("sandbox",
                       "\"read-only\" | \"workspace-write\" | \"off\" | { mode: string; "
                       "network?: boolean; writableRoots?: string[] }"),
        optional_field("replace", "boolean")}},
      object_shape<McpSwitch>(),
      object_shape<McpToolSummary>(),
      object_shape<McpServerTest>(),
      object_shape<McpLoginStarted>(),
      object_shape<McpSignedOut>(),
      // Skills (/api/skills): which skills agents may load.
      object_shape<SkillInfo>(),
      object_shape<SkillList>(),
      object_shape<SkillUpdateRequest>(),
      // The status stream (/api/status/events): the present, not history.
      object_shape<StateMessage>(),
      object_shape<DeltaMessage>(),
      object_shape<ToolMessage>(),
      object_shape<SummaryMessage>(),
      object_shape<CatalogMessage>(),
      object_shape<SnapshotMessage>(),
  };
}

}  // namespace

const std::vector<AliasShape>& api_aliases() {
  static const std::vector<AliasShape> aliases{
      {"DriverState", "A driver's lifecycle.",
       R"("idle" | "running" | "waiting" | "pausing" | "paused" | "aborting" | "closed")"},
      alias_shape<InputKind>(),
      alias_shape<ApprovalDecision>(),
      alias_shape<ApprovalScope>(),
      {"ConversationEvent", "A durable event; unknown future kinds arrive as EventBase.",
       "SessionStartEvent | InputEvent | InputClaimedEvent | InputBlockedEvent | TurnStartEvent | "
       "TurnEndEvent | "
       "StepStartEvent | "
       "StepEndEvent | AssistantEvent | ToolResultEvent | UsageEvent | ModelChangedEvent | "
       "CompactionEvent | "
       "ErrorEvent | RecoveredEvent | ApprovalRequestedEvent | ApprovalDecidedEvent | "
       "PermissionModeEvent | HookEvent | GoalSetEvent | CommandOutputEvent | "
       "(EventBase & Record<string, unknown>)"},
      {"StatusMessage", "A message of the status stream.",
       "StateMessage | DeltaMessage | ToolMessage | SummaryMessage | CatalogMessage | "
       "SnapshotMessage | AutomationMessage"},
  };
  return aliases;
}

const std::vector<ObjectShape>& api_objects() {
  static const std::vector<ObjectShape> objects = build_objects();
  return objects;
}

const ObjectShape* find_object(const std::string& name) {
  for (const auto& shape : api_objects()) {
    if (shape.name == name) return &shape;
  }
  return nullptr;
}

std::vector<FieldShape> all_fields(const ObjectShape& shape) {
  std::vector<FieldShape> fields;
  if (!shape.extends.empty()) {
    if (const auto* base = find_object(shape.extends)) fields = all_fields(*base);
  }
  fields.insert(fields.end(), shape.fields.begin(), shape.fields.end());
  return fields;
}

std::string typescript_module() {
  std::string out =
      "// Generated by ava-protocol-ts from the protocol package; do not edit.\n"
      "// The API's shapes are the Shape tables in include/ava/protocol/ (wire.hpp,\n"
      "// responses.hpp, capabilities.hpp); the session log's events and the mcpServers\n"
      "// entry are described in src/protocol/typescript.cpp. docs/api.md describes the routes.\n";
  for (const auto& alias : api_aliases()) {
    out += "\n/** " + alias.doc + " */\nexport type " + alias.name + " = " + alias.type + ";\n";
  }
  for (const auto& shape : api_objects()) {
    out += "\n/** " + shape.doc + " */\nexport interface " + shape.name;
    if (!shape.extends.empty()) out += " extends " + shape.extends;
    out += " {\n";
    for (const auto& field : shape.fields) {
      out += "  " + field.name + (field.optional ? "?: " : ": ") + field.type + ";\n";
    }
    out += "}\n";
  }
  return out;
}

}  // namespace ava::protocol
