#include "ava/protocol/typescript.hpp"

namespace ava::protocol {
namespace {

FieldShape required(std::string name, std::string type) {
  return {std::move(name), std::move(type), false};
}
FieldShape optional(std::string name, std::string type) {
  return {std::move(name), std::move(type), true};
}

std::vector<ObjectShape> build_objects() {
  const std::string usage_fields = "TokenTotals";
  return {
      {"ApiError",
       "Every non-2xx response.",
       {required("error", "{ code: string; message: string }")}},
      {"ModelRef",
       "Which model answers; empty strings mean the configured default.",
       {required("provider", "string"), required("model", "string")}},
      {"Project",
       "A registered folder conversations run in.",
       {required("id", "string"), required("path", "string"), required("name", "string"),
        required("createdMs", "number")}},
      {"TokenTotals",
       "Token usage totals.",
       {required("inputTokens", "number"), required("outputTokens", "number"),
        required("cacheReadTokens", "number"), required("cacheWriteTokens", "number")}},
      {"Conversation",
       "A conversation's navigation metadata (web.json).",
       {required("id", "string"), required("projectId", "string"), required("title", "string"),
        required("model", "ModelRef"), required("createdMs", "number"),
        required("updatedMs", "number"), required("pinned", "boolean"),
        required("archived", "boolean"), required("reviewedSeq", "number"),
        required("lastSeq", "number"), required("usage", usage_fields)}},
      {"ConversationView",
       "A conversation as the API lists it: metadata plus whether it is loaded.",
       {required("loaded", "boolean"), required("state", "DriverState"),
        optional("status", "DriverStatus")},
       "Conversation"},
      {"CreateProject",
       "POST /api/projects",
       {required("path", "string"), optional("name", "string")}},
      {"CreateConversation",
       "POST /api/conversations",
       {required("projectId", "string"), optional("title", "string"),
        optional("model", "ModelRef")}},
      {"ConversationPatch",
       "PATCH /api/conversations/{id}",
       {optional("title", "string"), optional("pinned", "boolean"), optional("archived", "boolean"),
        optional("reviewedSeq", "number")}},
      {"Attachment",
       "An image sent with input.",
       {required("mediaType", "string"), required("data", "string")}},
      {"InputRequest",
       "POST /api/conversations/{id}/input",
       {optional("kind", "InputKind"), required("text", "string"), optional("inputId", "string"),
        optional("attachments", "Attachment[]")}},
      {"InputAccepted",
       "202 for an input, once it is durable.",
       {required("inputId", "string"), required("seq", "number"),
        required("duplicate", "boolean")}},
      {"Usage",
       "Usage as a driver reports it.",
       {required("inputTokens", "number"), required("outputTokens", "number"),
        required("cacheReadTokens", "number"), required("cacheWriteTokens", "number"),
        required("reasoningTokens", "number")}},
      {"DriverStatus",
       "A loaded conversation's driver, provider-neutral.",
       {required("state", "DriverState"), required("sessionId", "string"),
        required("provider", "string"), required("model", "string"), required("turnId", "string"),
        required("step", "number"), required("pendingInputs", "number"),
        required("activity", "string"), required("usage", "Usage"), required("lastSeq", "number"),
        required("lastError", "string")}},
      {"Health",
       "GET /api/health",
       {required("ok", "boolean"), required("mode", "\"backend\" | \"serve\""),
        required("version", "string"), required("machineId", "string"), required("pid", "number"),
        required("startedMs", "number")}},
      // The durable events of /api/conversations/{id}/events: the log's own JSON.
      {"EventBase",
       "Fields every durable event has.",
       {required("type", "string"), required("seq", "number"), required("ts", "number")}},
      {"ContentBlock",
       "A block of a message or tool result.",
       {required("type", "\"text\" | \"thinking\" | \"tool_call\" | \"tool_result\" | \"image\""),
        optional("text", "string"), optional("id", "string"), optional("name", "string"),
        optional("arguments", "string"), optional("media_type", "string"),
        optional("data", "string"), optional("signature", "string"),
        optional("redacted_data", "string"), optional("encrypted_content", "string"),
        optional("provider_id", "string"), optional("call_id", "string"),
        optional("is_error", "boolean"), optional("content", "ContentBlock[]")}},
      {"SessionStartEvent",
       "session_start",
       {required("session_id", "string"), required("provider", "string"),
        required("model", "string"), required("cwd", "string"), required("version", "string")},
       "EventBase"},
      {"InputEvent",
       "input: acknowledged user input",
       {required("input_id", "string"), required("kind", "InputKind"), required("text", "string"),
        optional("attachments", "ContentBlock[]")},
       "EventBase"},
      {"InputClaimedEvent",
       "input_claimed: inputs a step took",
       {required("input_ids", "string[]"), required("turn_id", "string"),
        required("step", "number")},
       "EventBase"},
      {"TurnStartEvent", "turn_start", {required("turn_id", "string")}, "EventBase"},
      {"TurnEndEvent",
       "turn_end",
       {required("turn_id", "string"), required("reason", "string"), optional("message", "string")},
       "EventBase"},
      {"StepStartEvent",
       "step_start",
       {required("turn_id", "string"), required("step", "number"), required("model", "string")},
       "EventBase"},
      {"StepEndEvent",
       "step_end",
       {required("turn_id", "string"), required("step", "number"), required("reason", "string"),
        optional("stop_reason", "string")},
       "EventBase"},
      {"AssistantEvent",
       "assistant: one step's model output",
       {required("turn_id", "string"), required("step", "number"),
        required("content", "ContentBlock[]")},
       "EventBase"},
      {"ToolResultEvent",
       "tool_result: what a tool call returned",
       {required("turn_id", "string"), required("step", "number"), required("call_id", "string"),
        required("tool_name", "string"),
        required("status", "\"ok\" | \"error\" | \"interrupted\" | \"skipped\""),
        required("content", "ContentBlock[]"), optional("details", "Record<string, unknown>")},
       "EventBase"},
      {"LogUsage",
       "Token usage as the log records it.",
       {required("input_tokens", "number"), required("output_tokens", "number"),
        required("cache_read_tokens", "number"), required("cache_write_tokens", "number"),
        required("reasoning_tokens", "number")}},
      {"UsageEvent",
       "usage: what one step used",
       {required("turn_id", "string"), required("step", "number"), required("model", "string"),
        required("usage", "LogUsage")},
       "EventBase"},
      {"ModelChangedEvent",
       "model_changed",
       {required("provider", "string"), required("model", "string")},
       "EventBase"},
      {"CompactionEvent",
       "compaction: earlier turns summarized",
       {required("summary", "string"), required("first_kept_seq", "number"),
        required("tokens_before", "number")},
       "EventBase"},
      {"ErrorEvent",
       "error: a failed turn or step",
       {optional("turn_id", "string"), required("code", "string"), required("message", "string")},
       "EventBase"},
      {"RecoveredEvent",
       "recovered: what recovery repaired",
       {required("dropped_bytes", "number"), optional("torn_file", "string"),
        required("notes", "string[]")},
       "EventBase"},
      // Responses of the routes that are not a single object above.
      {"ProjectList", "GET /api/projects", {required("projects", "Project[]")}},
      {"ConversationList",
       "GET /api/conversations",
       {required("conversations", "ConversationView[]")}},
      {"ProviderInfo",
       "GET /api/models: a provider (never its key)",
       {required("name", "string"), optional("kind", "string"), optional("baseUrl", "string"),
        optional("model", "string"), required("configured", "boolean"),
        optional("keySaved", "boolean"), optional("keyVariable", "string"),
        optional("problem", "string")}},
      {"CatalogModel",
       "GET /api/models: a catalog entry",
       {required("id", "string"), required("providerKind", "string"),
        required("contextWindow", "number"), required("maxOutput", "number"),
        required("inputPerMTok", "number"), required("outputPerMTok", "number"),
        required("tools", "boolean"), required("images", "boolean"),
        required("thinking", "boolean")}},
      {"ModelsResponse",
       "GET /api/models",
       {required("defaultProvider", "string"), required("providers", "ProviderInfo[]"),
        required("models", "CatalogModel[]")}},
      {"SettingsResponse",
       "GET /api/settings",
       {required("provider", "string"), required("model", "string"),
        required("models", "Record<string, { contextWindow?: number; maxOutput?: number }>"),
        required("savedKeys", "string[]"), required("settingsFile", "string")}},
      {"ProviderUpdate",
       "PUT /api/settings/providers/{name} (empty string: back to the default)",
       {optional("kind", "string"), optional("baseUrl", "string"), optional("model", "string"),
        optional("apiKey", "string")}},
      {"ConversationUsage",
       "GET /api/conversations/{id}/usage",
       {required("conversationId", "string"), required("usage", "TokenTotals"),
        optional("costUsd", "number")}},
      // MCP servers (/api/mcp/servers): secrets (env, header values) come back redacted.
      {"McpServer",
       "A configured MCP server; env and header values read \"<redacted>\".",
       {required("name", "string"), required("transport", "\"stdio\" | \"http\""),
        required("enabled", "boolean"), required("projects", "Record<string, boolean>"),
        required("source", "string"), required("createdMs", "number"),
        required("updatedMs", "number"), optional("command", "string"),
        optional("args", "string[]"), optional("env", "Record<string, string>"),
        optional("cwd", "string"), optional("url", "string"),
        optional("headers", "Record<string, string>"), optional("enabledHere", "boolean"),
        optional("signedIn", "boolean"), optional("oauth", "McpOAuthClient")}},
      {"McpOAuthClient",
       "A pre-registered OAuth client of an HTTP server (the secret reads \"<redacted>\")",
       {required("clientId", "string"), optional("clientSecret", "string")}},
      {"McpServerList", "GET /api/mcp/servers", {required("servers", "McpServer[]")}},
      {"CreateMcpServer",
       "POST /api/mcp/servers (also the mcpServers entry shape)",
       {required("name", "string"), optional("type", "\"stdio\" | \"http\""),
        optional("command", "string"), optional("args", "string[]"),
        optional("env", "Record<string, string>"), optional("cwd", "string"),
        optional("url", "string"), optional("headers", "Record<string, string>"),
        optional("oauth", "McpOAuthClient"), optional("enabled", "boolean"),
        optional("replace", "boolean")}},
      {"McpSwitch",
       "PATCH /api/mcp/servers/{name}, PUT /api/mcp/servers/{name}/projects/{projectId}",
       {required("enabled", "boolean")}},
      {"McpToolSummary",
       "A tool a server lists.",
       {required("name", "string"), required("description", "string")}},
      {"McpServerTest",
       "POST /api/mcp/servers/{name}/test: a fresh connection's answer",
       {required("serverName", "string"), required("serverVersion", "string"),
        required("protocolVersion", "string"), required("tools", "McpToolSummary[]")}},
      {"McpLoginStarted",
       "POST /api/mcp/servers/{name}/login: the page to open; the sign-in ends in the background",
       {required("authorizationUrl", "string"), required("timeoutMs", "number")}},
      {"McpSignedOut", "POST /api/mcp/servers/{name}/logout", {required("signedOut", "boolean")}},
      // Skills (/api/skills): which skills agents may load.
      {"SkillInfo",
       "A skill agents find, and whether they may use it (setting: the switch that decided).",
       {required("name", "string"), required("description", "string"),
        required("source", "\"user\" | \"project\""), required("path", "string"),
        required("enabled", "boolean"),
        required("setting", "\"project\" | \"user\" | \"default\"")}},
      {"SkillList",
       "GET /api/skills[?projectId=], and the answer of PUT /api/skills/{name}",
       {required("skills", "SkillInfo[]"), optional("projectId", "string")}},
      {"SkillUpdate",
       "PUT /api/skills/{name}: null removes the switch; no projectId: the user-wide one",
       {required("enabled", "boolean | null"), optional("projectId", "string")}},
      // The status stream (/api/status/events): the present, not history.
      {"StateMessage",
       "status stream: a driver changed state",
       {required("type", "\"state\""), required("conversationId", "string"),
        required("state", "DriverState")}},
      {"DeltaMessage",
       "status stream: streamed answer (delta) or reasoning (thinking) text",
       {required("type", "\"delta\" | \"thinking\""), required("conversationId", "string"),
        required("turnId", "string"), required("step", "number"), required("text", "string")}},
      {"ToolMessage",
       "status stream: tool activity",
       {required("type", "\"tool\""), required("conversationId", "string"),
        required("turnId", "string"), required("callId", "string"), required("toolName", "string"),
        required("label", "string"), required("finished", "boolean")}},
      {"SummaryMessage",
       "status stream: a turn ended",
       {required("type", "\"summary\""), required("conversationId", "string"),
        required("updatedMs", "number"), required("lastSeq", "number"),
        required("usage", "TokenTotals"), required("lastError", "string")}},
      {"CatalogMessage",
       "status stream: the catalog changed",
       {required("type", "\"catalog\""),
        required("action", "\"created\" | \"updated\" | \"project\" | \"provider\""),
        optional("conversation", "Conversation"), optional("project", "Project"),
        optional("provider", "ProviderInfo")}},
      {"SnapshotMessage",
       "status stream: first message, every loaded conversation",
       {required("type", "\"snapshot\""),
        required("conversations", "(DriverStatus & { conversationId: string })[]")}},
  };
}

}  // namespace

const std::vector<AliasShape>& api_aliases() {
  static const std::vector<AliasShape> aliases{
      {"DriverState", "A driver's lifecycle.",
       R"("idle" | "running" | "pausing" | "paused" | "aborting" | "closed")"},
      {"InputKind", "followup: the next turn; steer: the running turn's next step.",
       R"("followup" | "steer")"},
      {"ConversationEvent", "A durable event; unknown future kinds arrive as EventBase.",
       "SessionStartEvent | InputEvent | InputClaimedEvent | TurnStartEvent | TurnEndEvent | "
       "StepStartEvent | "
       "StepEndEvent | AssistantEvent | ToolResultEvent | UsageEvent | ModelChangedEvent | "
       "CompactionEvent | "
       "ErrorEvent | RecoveredEvent | (EventBase & Record<string, unknown>)"},
      {"StatusMessage", "A message of the status stream.",
       "StateMessage | DeltaMessage | ToolMessage | SummaryMessage | CatalogMessage | "
       "SnapshotMessage"},
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
      "// The shapes live in src/protocol/typescript.cpp; docs/api.md describes the routes.\n";
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
