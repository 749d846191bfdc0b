#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ava/content/items.hpp"
#include "ava/session/event.hpp"

namespace ava::session {

// Acknowledged input that no step has claimed yet.
struct PendingInput {
  Seq seq = 0;
  std::string input_id;
  InputKind kind = InputKind::followup;
  std::string text;
  std::vector<content::ImageBlock> attachments;
  std::vector<std::string> allowed_tools;  // a slash command's
  bool allowed_tools_unasked = false;
  bool plan = false;  // /plan TEXT
  std::string model;  // a slash command's model for its turn
};

// A tool call waiting for a person: requested, neither decided nor answered.
struct PendingApproval {
  Seq seq = 0;
  ApprovalRequested request;
};

// What a log says the next request is built from. Rebuilt the same way after
// a restart, a recovery or a replay, so each sees the same context.
struct Context {
  std::string session_id;
  std::string provider;
  std::string model;
  std::string cwd;
  std::vector<content::Message> messages;  // compaction honoured
  std::vector<Seq> message_seqs;           // the event each message starts at
  std::vector<PendingInput> pending;       // in acknowledgement order
  std::string open_turn;                   // empty when idle
  std::optional<int> open_step;
  std::vector<std::string> unpaired_calls;  // tool call ids without a result
  bool paused = false;
  std::vector<PendingApproval> pending_approvals;  // in request order
  // Allow rules a person granted for the rest of this conversation (or the
  // project) when deciding an approval, in decision order.
  std::vector<std::string> granted_rules;
  std::string permission_mode;  // the last one a person chose; empty: the settings'
  // The open turn took a slash command with allowed-tools: only the tools
  // these rules name are offered, and calls they match run unasked.
  std::vector<std::string> turn_allowed_tools;
  std::vector<std::string> turn_granted_rules;  // of those, the ones that run unasked
  // The open turn took a /plan input: mutating calls are refused in it.
  bool turn_plan = false;
  // The open turn took a slash command with `model:`: its steps use it.
  std::string turn_model;
  // Set by /goal; each turn's first user message starts with a reminder.
  std::string goal;
  content::Usage usage;                                  // totals over the whole log
  std::map<std::string, content::Usage> usage_by_model;  // the same, per model
  Seq last_seq = 0;
};

// Applies events one at a time; the agent feeds it each event it appends.
class ContextBuilder {
 public:
  void apply(const Event& event);
  const Context& context() const { return context_; }
  Context take() { return std::move(context_); }

 private:
  void add_message(Seq seq, content::Message message);
  void claim(const Event& event, const InputClaimed& claimed);
  void compact(const Compacted& compacted);

  Context context_;
};

Context rebuild_context(const std::vector<Event>& events);

// The reminder a goal puts before the input that starts a turn.
std::string goal_reminder_text(const std::string& goal);

// The text a compaction summary is presented with to the model.
std::string summary_message_text(const std::string& summary);

}  // namespace ava::session
