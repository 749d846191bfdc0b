#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/content/items.hpp"

namespace ava::session {

// Sequence numbers start at 1 and grow by one per event in a log.
using Seq = std::uint64_t;

// The provider-neutral event schema of a session log. Each kind has one
// mapping function in the codec (codec.cpp); adding a kind means adding a
// struct here, a name, and both directions there.

struct SessionStarted {
  std::string session_id;
  std::string provider;
  std::string model;
  std::string cwd;
  std::string version;  // Ava's version that created the log
  // A subagent's log: the session and tool call (`task`) that started it.
  std::string parent_session_id;
  std::string parent_call_id;
};

enum class InputKind { followup, steer };

struct InputAcknowledged {
  std::string input_id;
  InputKind kind = InputKind::followup;
  std::string text;  // as the user typed it
  std::vector<content::ImageBlock> attachments;
  // A slash command: its name, and what the model gets instead of `text`
  // (the template with the arguments put in); the turn that takes it may use
  // only the tools its allowed-tools rules name, and those run unasked.
  std::string command;
  std::string expansion;
  std::vector<std::string> allowed_tools;
  // Whether those calls also run unasked: the user's own commands, and a
  // trusted project's; an untrusted repository's command only narrows.
  bool allowed_tools_unasked = false;
  // /plan TEXT: the turn that takes it runs read-only (mutating calls are
  // refused whatever the mode) and the model is asked for a plan.
  bool plan = false;
  // A slash command's `model:`: the model of the turn that takes it.
  std::string model;
};

// Input taken into the model context by a step. The gate claims one followup
// on a turn's first step and every pending steer on each step.
struct InputClaimed {
  std::vector<std::string> input_ids;
  std::string turn_id;
  int step = 0;
};

// Input a UserPromptSubmit hook refused before any step took it: it leaves
// the pending queue and never reaches the model; the reason is the user's.
struct InputBlocked {
  std::string input_id;
  std::string hook = "UserPromptSubmit";
  std::string reason;
};

enum class EndReason { completed, aborted, error, max_steps, interrupted };

struct TurnStarted {
  std::string turn_id;
};

struct TurnEnded {
  std::string turn_id;
  EndReason reason = EndReason::completed;
  std::string message;  // why, when not completed
};

struct StepStarted {
  std::string turn_id;
  int step = 0;
  std::string model;
};

struct StepEnded {
  std::string turn_id;
  int step = 0;
  EndReason reason = EndReason::completed;
  std::string stop_reason;  // the provider's, e.g. "end_turn", "tool_use"
};

// One complete model response: thinking, text and tool calls in stream order.
struct AssistantMessage {
  std::string turn_id;
  int step = 0;
  std::vector<content::ContentBlock> content;
};

enum class ToolStatus { ok, error, interrupted, skipped };

struct ToolResult {
  std::string turn_id;
  int step = 0;
  std::string call_id;
  std::string tool_name;
  ToolStatus status = ToolStatus::ok;
  std::vector<content::ToolResultContent> content;
  nlohmann::json details;  // structured data for UIs (a diff, an exit code); null if none
};

struct UsageRecorded {
  std::string turn_id;
  int step = 0;
  std::string model;
  content::Usage usage;
  // Spent by a subagent (its session id) for this call: counted in this
  // conversation's totals; its own log has the same tokens per request.
  std::string subagent;
  // From the request leaving to the first streamed output, and to the whole
  // response (0 when not measured: older logs, a subagent's roll-up).
  std::int64_t first_token_ms = 0;
  std::int64_t duration_ms = 0;
};

struct ModelChanged {
  std::string provider;
  std::string model;
};

struct Paused {};
struct Resumed {};

// Context before `first_kept_seq` is replaced by `summary` for later requests.
struct Compacted {
  std::string summary;
  Seq first_kept_seq = 0;
  std::int64_t tokens_before = 0;
};

struct ErrorOccurred {
  std::string turn_id;  // empty when not inside a turn
  std::string code;
  std::string message;
};

// Written by recovery after it cut a torn tail or closed open lifecycles.
struct Recovered {
  std::uint64_t dropped_bytes = 0;
  std::string torn_file;  // where the dropped bytes were moved; empty if none
  std::vector<std::string> notes;
};

// A tool call that needs a person before it runs (docs/permissions.md). The
// driver waits for the decision with the call unanswered; the wait survives
// a restart, because the tool has not run yet.
struct ApprovalRequested {
  std::string approval_id;
  std::string turn_id;
  int step = 0;
  std::string call_id;
  std::string tool_name;
  nlohmann::json arguments;  // the call's arguments as the model sent them (an object)
  std::string category;      // read, edit, execute, network, mcp
  std::string reason;        // why it asks, for the person
  std::string rule;          // the rule that asked; empty when the mode did
  std::vector<std::string> suggested_rules;  // rules that would allow calls like this one
};

enum class ApprovalDecision { allow, deny };
// once: this call. conversation: `rule` is allowed for the rest of the
// conversation. project: `rule` was also written to the project's settings.
enum class ApprovalScope { once, conversation, project };

struct ApprovalDecided {
  std::string approval_id;
  std::string call_id;
  ApprovalDecision decision = ApprovalDecision::deny;
  ApprovalScope scope = ApprovalScope::once;
  std::string rule;     // the allow rule a wider scope adds; empty for once
  std::string message;  // the person's note to the model; may be empty
};

// The conversation's permission mode from here on (ask, accept-edits, plan,
// auto), chosen by a person; it outranks the settings' default mode.
struct PermissionModeChanged {
  std::string mode;
};

// One hook command's run around a tool call or a lifecycle point, so the UIs
// and `ava session inspect` show why a call was blocked or changed.
struct HookRan {
  std::string hook;  // PreToolUse, PostToolUse, UserPromptSubmit, Stop, ...
  std::string command;
  std::string turn_id;  // empty outside a turn
  std::string call_id;  // the tool call, for tool hooks
  std::int64_t duration_ms = 0;
  std::string outcome;  // ok, block, allow, ask, deny, rewrite, error, timeout
  std::int64_t exit_code = 0;
  std::string reason;  // a veto's or decision's reason
  std::string output;  // the command's stdout and stderr, bounded
};

// The conversation's goal from here on (/goal TEXT), reminded to the model at
// the start of every turn; empty clears it.
struct GoalSet {
  std::string goal;
};

// A built-in slash command the agent answered itself (/help, /cost, /goal,
// ...): what the user typed and what they were shown. The model never sees
// either; a resent input id gets this event's receipt.
struct CommandOutput {
  std::string input_id;
  std::string text;     // as typed
  std::string command;  // its name, without the slash
  std::string output;   // Markdown for the person
};

// An event of a kind this version does not know, kept exactly as read.
struct UnknownEvent {
  std::string type;
  nlohmann::json raw;  // the whole object, seq and ts included
};

using EventBody =
    std::variant<SessionStarted, InputAcknowledged, InputClaimed, InputBlocked, TurnStarted,
                 TurnEnded, StepStarted, StepEnded, AssistantMessage, ToolResult, UsageRecorded,
                 ModelChanged, Paused, Resumed, Compacted, ErrorOccurred, Recovered,
                 ApprovalRequested, ApprovalDecided, PermissionModeChanged, HookRan, GoalSet,
                 CommandOutput, UnknownEvent>;

struct Event {
  Seq seq = 0;
  std::int64_t ts_ms = 0;  // Unix milliseconds
  EventBody body;
  // Fields of a known kind that this version does not know; written back.
  nlohmann::json extra = nlohmann::json::object();
};

// The "type" name of an event body, e.g. "tool_result".
std::string_view type_name(const EventBody& body);
std::string_view to_string(EndReason reason);
std::string_view to_string(ToolStatus status);
std::string_view to_string(InputKind kind);
std::string_view to_string(ApprovalDecision decision);
std::string_view to_string(ApprovalScope scope);

}  // namespace ava::session
