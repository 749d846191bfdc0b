#include "ava/session/codec.hpp"

#include <fmt/format.h>

#include "ava/base/json.hpp"

#include "session/codec_paths.hpp"
#include "session/content_codec.hpp"
#include "session/field_reader.hpp"
#include "session/json_writer.hpp"
#include "session/overload.hpp"
#include "session/span_reader.hpp"

namespace ava::session {

namespace {

// Deeper than any event Ava writes (tool arguments are bounded at 64 levels
// when the model sends them), shallow enough to decode without recursion
// trouble.
constexpr std::size_t max_event_depth = 256;

using nlohmann::json;

constexpr std::pair<EndReason, std::string_view> kEndReasons[] = {
    {EndReason::completed, "completed"},
    {EndReason::aborted, "aborted"},
    {EndReason::error, "error"},
    {EndReason::max_steps, "max_steps"},
    {EndReason::interrupted, "interrupted"}};
constexpr std::pair<ToolStatus, std::string_view> kToolStatuses[] = {
    {ToolStatus::ok, "ok"},
    {ToolStatus::error, "error"},
    {ToolStatus::interrupted, "interrupted"},
    {ToolStatus::skipped, "skipped"}};
constexpr std::pair<InputKind, std::string_view> kInputKinds[] = {{InputKind::followup, "followup"},
                                                                  {InputKind::steer, "steer"}};
constexpr std::pair<ApprovalDecision, std::string_view> kDecisions[] = {
    {ApprovalDecision::allow, "allow"}, {ApprovalDecision::deny, "deny"}};
constexpr std::pair<ApprovalScope, std::string_view> kScopes[] = {
    {ApprovalScope::once, "once"},
    {ApprovalScope::conversation, "conversation"},
    {ApprovalScope::project, "project"}};

template <class Enum, std::size_t N, class Reader>
Enum parse_enum(const std::pair<Enum, std::string_view> (&table)[N], const std::string& text,
                const char* field, Reader& r) {
  for (const auto& [value, name] : table) {
    if (name == text) return value;
  }
  if (r.ok()) r.fail(fmt::format("field '{}' has unknown value '{}'", field, text));
  return table[0].first;
}

template <class Enum, std::size_t N>
std::string_view enum_name(const std::pair<Enum, std::string_view> (&table)[N], Enum value) {
  for (const auto& [candidate, name] : table) {
    if (candidate == value) return name;
  }
  return "unknown";
}

json encode_body(const EventBody& body) {
  return std::visit(
      Overload{
          [](const SessionStarted& e) -> json {
            json o = {{"session_id", e.session_id},
                      {"provider", e.provider},
                      {"model", e.model},
                      {"cwd", e.cwd},
                      {"version", e.version}};
            if (!e.parent_session_id.empty()) o["parent_session_id"] = e.parent_session_id;
            if (!e.parent_call_id.empty()) o["parent_call_id"] = e.parent_call_id;
            return o;
          },
          [](const InputAcknowledged& e) -> json {
            json o = {{"input_id", e.input_id}, {"kind", to_string(e.kind)}, {"text", e.text}};
            if (!e.command.empty()) o["command"] = e.command;
            if (!e.expansion.empty()) o["expansion"] = e.expansion;
            if (!e.allowed_tools.empty()) o["allowed_tools"] = e.allowed_tools;
            if (e.allowed_tools_unasked) o["allowed_tools_unasked"] = true;
            if (e.plan) o["plan"] = true;
            if (!e.model.empty()) o["model"] = e.model;
            if (!e.attachments.empty()) {
              o["attachments"] = json::array();
              for (const auto& image : e.attachments)
                o["attachments"].push_back(encode_image(image));
            }
            return o;
          },
          [](const InputClaimed& e) -> json {
            return {{"input_ids", e.input_ids}, {"turn_id", e.turn_id}, {"step", e.step}};
          },
          [](const InputBlocked& e) -> json {
            json o = {{"input_id", e.input_id}, {"hook", e.hook}};
            if (!e.reason.empty()) o["reason"] = e.reason;
            return o;
          },
          [](const TurnStarted& e) -> json {
            return {{"turn_id", e.turn_id}};
          },
          [](const TurnEnded& e) -> json {
            json o = {{"turn_id", e.turn_id}, {"reason", to_string(e.reason)}};
            if (!e.message.empty()) o["message"] = e.message;
            return o;
          },
          [](const StepStarted& e) -> json {
            return {{"turn_id", e.turn_id}, {"step", e.step}, {"model", e.model}};
          },
          [](const StepEnded& e) -> json {
            json o = {{"turn_id", e.turn_id}, {"step", e.step}, {"reason", to_string(e.reason)}};
            if (!e.stop_reason.empty()) o["stop_reason"] = e.stop_reason;
            return o;
          },
          [](const AssistantMessage& e) -> json {
            return {
                {"turn_id", e.turn_id}, {"step", e.step}, {"content", encode_blocks(e.content)}};
          },
          [](const ToolResult& e) -> json {
            json o = {{"turn_id", e.turn_id},          {"step", e.step},
                      {"call_id", e.call_id},          {"tool_name", e.tool_name},
                      {"status", to_string(e.status)}, {"content", encode_tool_content(e.content)}};
            if (!e.details.is_null()) o["details"] = e.details;
            return o;
          },
          [](const UsageRecorded& e) -> json {
            json o = {{"turn_id", e.turn_id},
                      {"step", e.step},
                      {"model", e.model},
                      {"usage", encode_usage(e.usage)}};
            if (!e.subagent.empty()) o["subagent"] = e.subagent;
            if (e.first_token_ms > 0) o["first_token_ms"] = e.first_token_ms;
            if (e.duration_ms > 0) o["duration_ms"] = e.duration_ms;
            return o;
          },
          [](const ModelChanged& e) -> json {
            return {{"provider", e.provider}, {"model", e.model}};
          },
          [](const Paused&) -> json { return json::object(); },
          [](const Resumed&) -> json { return json::object(); },
          [](const Compacted& e) -> json {
            return {{"summary", e.summary},
                    {"first_kept_seq", e.first_kept_seq},
                    {"tokens_before", e.tokens_before}};
          },
          [](const ErrorOccurred& e) -> json {
            json o = {{"code", e.code}, {"message", e.message}};
            if (!e.turn_id.empty()) o["turn_id"] = e.turn_id;
            return o;
          },
          [](const Recovered& e) -> json {
            json o = {{"dropped_bytes", e.dropped_bytes}, {"notes", e.notes}};
            if (!e.torn_file.empty()) o["torn_file"] = e.torn_file;
            return o;
          },
          [](const ApprovalRequested& e) -> json {
            json o = {{"approval_id", e.approval_id},
                      {"arguments", e.arguments},
                      {"call_id", e.call_id},
                      {"category", e.category},
                      {"reason", e.reason},
                      {"step", e.step},
                      {"suggested_rules", e.suggested_rules},
                      {"tool_name", e.tool_name},
                      {"turn_id", e.turn_id}};
            if (!e.rule.empty()) o["rule"] = e.rule;
            return o;
          },
          [](const ApprovalDecided& e) -> json {
            json o = {{"approval_id", e.approval_id},
                      {"call_id", e.call_id},
                      {"decision", to_string(e.decision)},
                      {"scope", to_string(e.scope)}};
            if (!e.rule.empty()) o["rule"] = e.rule;
            if (!e.message.empty()) o["message"] = e.message;
            return o;
          },
          [](const PermissionModeChanged& e) -> json {
            return {{"mode", e.mode}};
          },
          [](const GoalSet& e) -> json {
            return {{"goal", e.goal}};
          },
          [](const CommandOutput& e) -> json {
            return {{"input_id", e.input_id},
                    {"text", e.text},
                    {"command", e.command},
                    {"output", e.output}};
          },
          [](const HookRan& e) -> json {
            json o = {{"command", e.command},
                      {"duration_ms", e.duration_ms},
                      {"exit_code", e.exit_code},
                      {"hook", e.hook},
                      {"outcome", e.outcome}};
            if (!e.call_id.empty()) o["call_id"] = e.call_id;
            if (!e.turn_id.empty()) o["turn_id"] = e.turn_id;
            if (!e.reason.empty()) o["reason"] = e.reason;
            if (!e.output.empty()) o["output"] = e.output;
            return o;
          },
          [](const UnknownEvent& e) -> json { return e.raw; },
      },
      body);
}

template <class Reader>
int read_step(Reader& r) {
  return static_cast<int>(r.integer("step"));
}

template <class Reader, class Array>
std::vector<std::string> read_strings(const Array& items, const char* field, Reader& r) {
  std::vector<std::string> strings;
  for (const auto& item : items) {
    if (!item.is_string()) {
      r.fail(fmt::format("{} must hold strings", field));
      break;
    }
    strings.push_back(item.template get<std::string>());
  }
  return strings;
}

// The one mapping per known kind, shared by the DOM path (FieldReader) and
// the fast path (SpanReader). False if `type` is not a known kind.
template <class Reader>
bool decode_known_body(std::string_view type, Reader& r, EventBody& body) {
  if (type == "session_start") {
    body = SessionStarted{.session_id = r.string("session_id"),
                          .provider = r.optional_string("provider"),
                          .model = r.string("model"),
                          .cwd = r.string("cwd"),
                          .version = r.string("version"),
                          .parent_session_id = r.optional_string("parent_session_id"),
                          .parent_call_id = r.optional_string("parent_call_id")};
  } else if (type == "input") {
    InputAcknowledged e{.input_id = r.string("input_id"),
                        .kind = parse_enum(kInputKinds, r.string("kind"), "kind", r),
                        .text = r.string("text")};
    for (const auto& image : r.optional_array("attachments")) {
      e.attachments.push_back(decode_image<Reader>(image, r));
    }
    e.command = r.optional_string("command");
    e.expansion = r.optional_string("expansion");
    e.allowed_tools = read_strings(r.optional_array("allowed_tools"), "allowed_tools", r);
    e.allowed_tools_unasked = r.optional_bool("allowed_tools_unasked");
    e.plan = r.optional_bool("plan");
    e.model = r.optional_string("model");
    body = std::move(e);
  } else if (type == "input_claimed") {
    InputClaimed e{.turn_id = r.string("turn_id"), .step = read_step(r)};
    e.input_ids = read_strings(r.array("input_ids"), "input_ids", r);
    body = std::move(e);
  } else if (type == "input_blocked") {
    body = InputBlocked{.input_id = r.string("input_id"),
                        .hook = r.string("hook"),
                        .reason = r.optional_string("reason")};
  } else if (type == "turn_start") {
    body = TurnStarted{r.string("turn_id")};
  } else if (type == "turn_end") {
    body = TurnEnded{.turn_id = r.string("turn_id"),
                     .reason = parse_enum(kEndReasons, r.string("reason"), "reason", r),
                     .message = r.optional_string("message")};
  } else if (type == "step_start") {
    body = StepStarted{
        .turn_id = r.string("turn_id"), .step = read_step(r), .model = r.optional_string("model")};
  } else if (type == "step_end") {
    body = StepEnded{.turn_id = r.string("turn_id"),
                     .step = read_step(r),
                     .reason = parse_enum(kEndReasons, r.string("reason"), "reason", r),
                     .stop_reason = r.optional_string("stop_reason")};
  } else if (type == "assistant") {
    AssistantMessage e{.turn_id = r.string("turn_id"), .step = read_step(r)};
    e.content = decode_blocks<Reader>(r.array("content"), r);
    body = std::move(e);
  } else if (type == "tool_result") {
    ToolResult e{.turn_id = r.string("turn_id"),
                 .step = read_step(r),
                 .call_id = r.string("call_id"),
                 .tool_name = r.string("tool_name"),
                 .status = parse_enum(kToolStatuses, r.string("status"), "status", r)};
    e.content = decode_tool_content<Reader>(r.array("content"), r);
    e.details = to_json(r.optional_any("details"));
    body = std::move(e);
  } else if (type == "usage") {
    body = UsageRecorded{.turn_id = r.string("turn_id"),
                         .step = read_step(r),
                         .model = r.optional_string("model"),
                         .usage = decode_usage<Reader>(r.optional_any("usage"), r),
                         .subagent = r.optional_string("subagent"),
                         .first_token_ms = r.optional_integer("first_token_ms"),
                         .duration_ms = r.optional_integer("duration_ms")};
  } else if (type == "model_changed") {
    body = ModelChanged{.provider = r.optional_string("provider"), .model = r.string("model")};
  } else if (type == "paused") {
    body = Paused{};
  } else if (type == "resumed") {
    body = Resumed{};
  } else if (type == "compaction") {
    body = Compacted{.summary = r.string("summary"),
                     .first_kept_seq = r.unsigned_integer("first_kept_seq"),
                     .tokens_before = r.optional_integer("tokens_before")};
  } else if (type == "error") {
    body = ErrorOccurred{.turn_id = r.optional_string("turn_id"),
                         .code = r.string("code"),
                         .message = r.string("message")};
  } else if (type == "recovered") {
    Recovered e{.dropped_bytes = r.unsigned_integer("dropped_bytes"),
                .torn_file = r.optional_string("torn_file")};
    for (const auto& note : r.optional_array("notes")) {
      if (note.is_string()) e.notes.push_back(note.template get<std::string>());
    }
    body = std::move(e);
  } else if (type == "approval_requested") {
    ApprovalRequested e{.approval_id = r.string("approval_id"),
                        .turn_id = r.string("turn_id"),
                        .step = read_step(r),
                        .call_id = r.string("call_id"),
                        .tool_name = r.string("tool_name"),
                        .arguments = to_json(r.optional_any("arguments")),
                        .category = r.optional_string("category"),
                        .reason = r.optional_string("reason"),
                        .rule = r.optional_string("rule")};
    e.suggested_rules = read_strings(r.optional_array("suggested_rules"), "suggested_rules", r);
    body = std::move(e);
  } else if (type == "approval_decided") {
    body = ApprovalDecided{.approval_id = r.string("approval_id"),
                           .call_id = r.string("call_id"),
                           .decision = parse_enum(kDecisions, r.string("decision"), "decision", r),
                           .scope = parse_enum(kScopes, r.string("scope"), "scope", r),
                           .rule = r.optional_string("rule"),
                           .message = r.optional_string("message")};
  } else if (type == "permission_mode") {
    body = PermissionModeChanged{r.string("mode")};
  } else if (type == "goal_set") {
    body = GoalSet{r.string("goal")};
  } else if (type == "command_output") {
    body = CommandOutput{.input_id = r.string("input_id"),
                         .text = r.string("text"),
                         .command = r.string("command"),
                         .output = r.string("output")};
  } else if (type == "hook") {
    body = HookRan{.hook = r.string("hook"),
                   .command = r.string("command"),
                   .turn_id = r.optional_string("turn_id"),
                   .call_id = r.optional_string("call_id"),
                   .duration_ms = r.optional_integer("duration_ms"),
                   .outcome = r.string("outcome"),
                   .exit_code = r.optional_integer("exit_code"),
                   .reason = r.optional_string("reason"),
                   .output = r.optional_string("output")};
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string_view to_string(EndReason reason) { return enum_name(kEndReasons, reason); }
std::string_view to_string(ToolStatus status) { return enum_name(kToolStatuses, status); }
std::string_view to_string(InputKind kind) { return enum_name(kInputKinds, kind); }
std::string_view to_string(ApprovalDecision decision) { return enum_name(kDecisions, decision); }
std::string_view to_string(ApprovalScope scope) { return enum_name(kScopes, scope); }

std::string_view type_name(const EventBody& body) {
  return std::visit(
      Overload{
          [](const SessionStarted&) { return std::string_view("session_start"); },
          [](const InputAcknowledged&) { return std::string_view("input"); },
          [](const InputClaimed&) { return std::string_view("input_claimed"); },
          [](const InputBlocked&) { return std::string_view("input_blocked"); },
          [](const TurnStarted&) { return std::string_view("turn_start"); },
          [](const TurnEnded&) { return std::string_view("turn_end"); },
          [](const StepStarted&) { return std::string_view("step_start"); },
          [](const StepEnded&) { return std::string_view("step_end"); },
          [](const AssistantMessage&) { return std::string_view("assistant"); },
          [](const ToolResult&) { return std::string_view("tool_result"); },
          [](const UsageRecorded&) { return std::string_view("usage"); },
          [](const ModelChanged&) { return std::string_view("model_changed"); },
          [](const Paused&) { return std::string_view("paused"); },
          [](const Resumed&) { return std::string_view("resumed"); },
          [](const Compacted&) { return std::string_view("compaction"); },
          [](const ErrorOccurred&) { return std::string_view("error"); },
          [](const Recovered&) { return std::string_view("recovered"); },
          [](const ApprovalRequested&) { return std::string_view("approval_requested"); },
          [](const ApprovalDecided&) { return std::string_view("approval_decided"); },
          [](const PermissionModeChanged&) { return std::string_view("permission_mode"); },
          [](const HookRan&) { return std::string_view("hook"); },
          [](const GoalSet&) { return std::string_view("goal_set"); },
          [](const CommandOutput&) { return std::string_view("command_output"); },
          [](const UnknownEvent& e) { return std::string_view(e.type); },
      },
      body);
}

json encode(const Event& event) {
  if (const auto* unknown = std::get_if<UnknownEvent>(&event.body)) {
    json raw = unknown->raw;
    raw["seq"] = event.seq;
    raw["ts"] = event.ts_ms;
    return raw;
  }
  json object = encode_body(event.body);
  for (const auto& [key, value] : event.extra.items()) {
    if (!object.contains(key)) object[key] = value;
  }
  object["seq"] = event.seq;
  object["ts"] = event.ts_ms;
  object["type"] = type_name(event.body);
  return object;
}

void write_event_line_dom(const Event& event, std::string& out) {
  // Invalid UTF-8 from a tool or model is replaced, never a reason to lose the event.
  write_json(encode(event), out);
  out.push_back('\n');
}

void append_event_line(const Event& event, std::string& out) {
  if (!write_event_line(event, out)) write_event_line_dom(event, out);
}

std::string encode_line(const Event& event) {
  std::string line;
  append_event_line(event, line);
  return line;
}

Result<Event> decode(const json& object) {
  if (!object.is_object()) return fail(ErrorCode::parse, "an event must be a JSON object");
  FieldReader r(object, "event");
  Event event;
  event.seq = r.unsigned_integer("seq");
  event.ts_ms = r.integer("ts");
  const std::string type = r.string("type");
  if (!r.ok()) return fail(ErrorCode::parse, r.message());
  FieldReader fields(object, fmt::format("event {} ({})", event.seq, type));
  for (const char* key : {"seq", "ts", "type"}) (void)fields.optional_any(key);
  if (!decode_known_body(type, fields, event.body)) {
    event.body = UnknownEvent{.type = type, .raw = object};
  }
  if (!fields.ok()) return fail(ErrorCode::parse, fields.message());
  if (!std::holds_alternative<UnknownEvent>(event.body)) event.extra = fields.unread();
  return event;
}

Result<Event> decode_line_dom(std::string_view line) {
  // A log is read back after a crash and may come from anywhere: a record
  // nested deeper than any event Ava writes is refused (decoding copies the
  // value recursively), not followed down the stack.
  auto object = base::parse_json(line, {.max_depth = max_event_depth});
  if (!object) return fail(ErrorCode::parse, "event is not valid JSON: " + object.error().message);
  return decode(*object);
}

bool decode_line_fast(std::string_view line, Event& event) {
  SpanReader r(line);  // validates the whole line first
  if (!r.ok()) return false;
  event.seq = r.unsigned_integer("seq");
  event.ts_ms = r.integer("ts");
  const std::string type = r.string("type");
  if (!r.ok() || !decode_known_body(type, r, event.body) || !r.ok()) return false;
  return r.unread(event.extra);
}

std::optional<Event> decode_line_fast(std::string_view line) {
  Event event;
  if (!decode_line_fast(line, event)) return std::nullopt;
  return event;
}

Result<Event> decode_line(std::string_view line) {
  // The fast path declines unknown kinds and anything it would not decode
  // exactly as the DOM path does; the DOM path then decides, and names the
  // problem if there is one.
  if (auto event = decode_line_fast(line)) return std::move(*event);
  return decode_line_dom(line);
}

}  // namespace ava::session
