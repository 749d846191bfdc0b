// The typed encoder: an event's JSON line written straight from its struct,
// byte-identical to serialising the nlohmann DOM of codec.cpp's encode().
// nlohmann keeps object keys sorted (std::map), so every object below lists
// its keys in byte order, with seq, ts and type in their sorted places;
// optional fields are left out exactly when encode() leaves them out. The
// codec tests compare both paths for every kind.
#include <charconv>
#include <concepts>

#include "ava/session/codec.hpp"
#include "session/codec_paths.hpp"
#include "session/json_writer.hpp"
#include "session/overload.hpp"

namespace ava::session {

namespace {

// One JSON object: '{' on construction, '}' when it goes out of scope.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_.push_back('{'); }
  ~ObjectWriter() { out_.push_back('}'); }
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  // Starts a member; keys are plain identifiers that need no escaping.
  std::string& key(std::string_view name) {
    if (!first_) out_.push_back(',');
    first_ = false;
    out_.push_back('"');
    out_.append(name);
    out_.append("\":");
    return out_;
  }
  void string(std::string_view name, std::string_view value) {
    write_json_string(value, key(name));
  }
  void optional_string(std::string_view name, std::string_view value) {
    if (!value.empty()) string(name, value);
  }
  template <std::integral Integer>
  void number(std::string_view name, Integer value) {
    key(name);
    char digits[24];
    const auto result = std::to_chars(std::begin(digits), std::end(digits), value);
    out_.append(digits, result.ptr);
  }
  void boolean(std::string_view name, bool value) { key(name).append(value ? "true" : "false"); }
  // seq and ts, written at their sorted places by each kind.
  void seq(const Event& event) { number("seq", event.seq); }
  void ts(const Event& event) { number("ts", event.ts_ms); }
  void type(std::string_view name) { string("type", name); }

 private:
  std::string& out_;
  bool first_ = true;
};

template <class Item, class Write>
void write_array(std::string& out, const std::vector<Item>& items, Write write) {
  out.push_back('[');
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.push_back(',');
    first = false;
    write(item);
  }
  out.push_back(']');
}

void write_strings(std::string& out, const std::vector<std::string>& items) {
  write_array(out, items, [&](const std::string& text) { write_json_string(text, out); });
}

void write_image(std::string& out, const content::ImageBlock& image) {
  ObjectWriter o(out);
  o.string("data", image.data);
  o.string("media_type", image.media_type);
  o.string("type", "image");
}

void write_text(std::string& out, const content::TextBlock& text) {
  ObjectWriter o(out);
  o.string("text", text.text);
  o.string("type", "text");
}

void write_tool_content(std::string& out, const std::vector<content::ToolResultContent>& content) {
  write_array(out, content, [&](const content::ToolResultContent& part) {
    if (const auto* text = std::get_if<content::TextBlock>(&part)) {
      write_text(out, *text);
    } else {
      write_image(out, std::get<content::ImageBlock>(part));
    }
  });
}

void write_blocks(std::string& out, const std::vector<content::ContentBlock>& blocks) {
  write_array(out, blocks, [&](const content::ContentBlock& block) {
    std::visit(Overload{
                   [&](const content::TextBlock& b) { write_text(out, b); },
                   [&](const content::ImageBlock& b) { write_image(out, b); },
                   [&](const content::ThinkingBlock& b) {
                     ObjectWriter o(out);
                     o.optional_string("encrypted_content", b.encrypted_content);
                     o.optional_string("provider_id", b.provider_id);
                     o.optional_string("redacted_data", b.redacted_data);
                     o.optional_string("signature", b.signature);
                     o.string("text", b.text);
                     o.string("type", "thinking");
                   },
                   [&](const content::ToolCallBlock& b) {
                     ObjectWriter o(out);
                     o.string("arguments", b.arguments);
                     o.string("id", b.id);
                     o.string("name", b.name);
                     o.string("type", "tool_call");
                   },
                   [&](const content::ToolResultBlock& b) {
                     ObjectWriter o(out);
                     o.string("call_id", b.call_id);
                     write_tool_content(o.key("content"), b.content);
                     o.boolean("is_error", b.is_error);
                     o.string("type", "tool_result");
                   },
               },
               block);
  });
}

void write_usage(std::string& out, const content::Usage& usage) {
  ObjectWriter o(out);
  o.number("cache_read_tokens", usage.cache_read_tokens);
  o.number("cache_write_tokens", usage.cache_write_tokens);
  o.number("input_tokens", usage.input_tokens);
  o.number("output_tokens", usage.output_tokens);
  o.number("reasoning_tokens", usage.reasoning_tokens);
}

void write_body(const Event& event, std::string& out) {
  ObjectWriter o(out);
  const std::string_view type = type_name(event.body);
  std::visit(Overload{
                 [&](const SessionStarted& e) {
                   o.string("cwd", e.cwd);
                   o.string("model", e.model);
                   o.optional_string("parent_call_id", e.parent_call_id);
                   o.optional_string("parent_session_id", e.parent_session_id);
                   o.string("provider", e.provider);
                   o.seq(event);
                   o.string("session_id", e.session_id);
                   o.ts(event);
                   o.type(type);
                   o.string("version", e.version);
                 },
                 [&](const InputAcknowledged& e) {
                   if (!e.allowed_tools.empty())
                     write_strings(o.key("allowed_tools"), e.allowed_tools);
                   if (e.allowed_tools_unasked) o.boolean("allowed_tools_unasked", true);
                   if (!e.attachments.empty())
                     write_array(
                         o.key("attachments"), e.attachments,
                         [&](const content::ImageBlock& image) { write_image(out, image); });
                   o.optional_string("command", e.command);
                   o.optional_string("expansion", e.expansion);
                   o.string("input_id", e.input_id);
                   o.string("kind", to_string(e.kind));
                   o.optional_string("model", e.model);
                   if (e.plan) o.boolean("plan", true);
                   o.seq(event);
                   o.string("text", e.text);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const InputClaimed& e) {
                   write_strings(o.key("input_ids"), e.input_ids);
                   o.seq(event);
                   o.number("step", e.step);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const InputBlocked& e) {
                   o.string("hook", e.hook);
                   o.string("input_id", e.input_id);
                   o.optional_string("reason", e.reason);
                   o.seq(event);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const TurnStarted& e) {
                   o.seq(event);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const TurnEnded& e) {
                   o.optional_string("message", e.message);
                   o.string("reason", to_string(e.reason));
                   o.seq(event);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const StepStarted& e) {
                   o.string("model", e.model);
                   o.seq(event);
                   o.number("step", e.step);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const StepEnded& e) {
                   o.string("reason", to_string(e.reason));
                   o.seq(event);
                   o.number("step", e.step);
                   o.optional_string("stop_reason", e.stop_reason);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const AssistantMessage& e) {
                   write_blocks(o.key("content"), e.content);
                   o.seq(event);
                   o.number("step", e.step);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const ToolResult& e) {
                   o.string("call_id", e.call_id);
                   write_tool_content(o.key("content"), e.content);
                   if (!e.details.is_null()) write_json(e.details, o.key("details"));
                   o.seq(event);
                   o.string("status", to_string(e.status));
                   o.number("step", e.step);
                   o.string("tool_name", e.tool_name);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const UsageRecorded& e) {
                   if (e.duration_ms > 0) o.number("duration_ms", e.duration_ms);
                   if (e.first_token_ms > 0) o.number("first_token_ms", e.first_token_ms);
                   o.string("model", e.model);
                   o.seq(event);
                   o.number("step", e.step);
                   o.optional_string("subagent", e.subagent);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                   write_usage(o.key("usage"), e.usage);
                 },
                 [&](const ModelChanged& e) {
                   o.string("model", e.model);
                   o.string("provider", e.provider);
                   o.seq(event);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const Paused&) {
                   o.seq(event);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const Resumed&) {
                   o.seq(event);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const Compacted& e) {
                   o.number("first_kept_seq", e.first_kept_seq);
                   o.seq(event);
                   o.string("summary", e.summary);
                   o.number("tokens_before", e.tokens_before);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const ErrorOccurred& e) {
                   o.string("code", e.code);
                   o.string("message", e.message);
                   o.seq(event);
                   o.ts(event);
                   o.optional_string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const Recovered& e) {
                   o.number("dropped_bytes", e.dropped_bytes);
                   write_strings(o.key("notes"), e.notes);
                   o.seq(event);
                   o.optional_string("torn_file", e.torn_file);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const ApprovalRequested& e) {
                   o.string("approval_id", e.approval_id);
                   write_json(e.arguments, o.key("arguments"));
                   o.string("call_id", e.call_id);
                   o.string("category", e.category);
                   o.string("reason", e.reason);
                   o.optional_string("rule", e.rule);
                   o.seq(event);
                   o.number("step", e.step);
                   write_strings(o.key("suggested_rules"), e.suggested_rules);
                   o.string("tool_name", e.tool_name);
                   o.ts(event);
                   o.string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const ApprovalDecided& e) {
                   o.string("approval_id", e.approval_id);
                   o.string("call_id", e.call_id);
                   o.string("decision", to_string(e.decision));
                   o.optional_string("message", e.message);
                   o.optional_string("rule", e.rule);
                   o.string("scope", to_string(e.scope));
                   o.seq(event);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const PermissionModeChanged& e) {
                   o.string("mode", e.mode);
                   o.seq(event);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const HookRan& e) {
                   o.optional_string("call_id", e.call_id);
                   o.string("command", e.command);
                   o.number("duration_ms", e.duration_ms);
                   o.number("exit_code", e.exit_code);
                   o.string("hook", e.hook);
                   o.string("outcome", e.outcome);
                   o.optional_string("output", e.output);
                   o.optional_string("reason", e.reason);
                   o.seq(event);
                   o.ts(event);
                   o.optional_string("turn_id", e.turn_id);
                   o.type(type);
                 },
                 [&](const GoalSet& e) {
                   o.string("goal", e.goal);
                   o.seq(event);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const CommandOutput& e) {
                   o.string("command", e.command);
                   o.string("input_id", e.input_id);
                   o.string("output", e.output);
                   o.seq(event);
                   o.string("text", e.text);
                   o.ts(event);
                   o.type(type);
                 },
                 [&](const UnknownEvent&) {},  // excluded by the caller
             },
             event.body);
}

}  // namespace

bool write_event_line(const Event& event, std::string& out) {
  if (std::holds_alternative<UnknownEvent>(event.body) || !event.extra.empty()) return false;
  write_body(event, out);
  out.push_back('\n');
  return true;
}

}  // namespace ava::session
