#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <QAbstractListModel>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <nlohmann/json_fwd.hpp>

namespace ava::desktop {

// One row of the conversation view. Tool rows carry what their card shows,
// derived here so that QML only lays it out.
struct ViewItem {
  enum class Kind { user, assistant, thinking, tool, notice, command };
  Kind kind = Kind::notice;
  QString key;
  QString text;  // user/assistant/thinking text, notice text
  // user
  QString input_kind;
  QString input_id;
  bool claimed = false;
  QString blocked;    // why a UserPromptSubmit hook kept it from the model
  bool plan = false;  // a /plan input: its turn only plans
  // command (a built-in the agent answered): `text` is what was typed,
  // `output` the answer (Markdown)
  // thinking
  bool redacted = false;
  // tool
  QString call_id;
  std::string turn_id;
  QString tool_name;
  QString title;
  QString status;  // running, waiting, ok, error, interrupted, skipped
  QString arguments;
  QString command;  // bash
  QString path;     // edit/read/write
  QString diff;     // edit
  QString exit_info;
  bool exit_bad = false;
  QString output;
  // a call waiting for a person (approval_requested), until decided
  QString approval_id;
  QString approval_reason;
  QString approval_rule;
  QStringList suggested_rules;
  QString preview;  // what will run: the command, an edit's old and new text, a write's content
  // a `task` call's subagent, once it reported: its session (log) and definition
  QString subagent_session;
  QString subagent_agent;
  // notice
  QString level;  // info, error, interrupted
};

// The conversation view as a function of the durable event history (the
// conversation's SSE stream) plus the live status messages, mirroring the web
// UI's reducer (web/src/model/conversation.ts). Events at or below lastSeq
// are ignored, so replaying after a reconnect is harmless. Rows are appended
// in batches: rowCount() lags the vector until the batch is announced.
class ConversationModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(QString conversationId READ conversationId NOTIFY conversationChanged)
  Q_PROPERTY(qint64 lastSeq READ lastSeq NOTIFY changed)
  Q_PROPERTY(QString driverState READ driverState NOTIFY changed)
  Q_PROPERTY(QString activity READ activity NOTIFY changed)
  Q_PROPERTY(QString provider READ provider NOTIFY changed)
  Q_PROPERTY(QString model READ model NOTIFY changed)
  Q_PROPERTY(QString liveText READ liveText NOTIFY liveChanged)
  Q_PROPERTY(QString liveThinking READ liveThinking NOTIFY liveChanged)
  Q_PROPERTY(bool turnOpen READ turnOpen NOTIFY changed)
  Q_PROPERTY(qint64 inputTokens READ inputTokens NOTIFY changed)
  Q_PROPERTY(qint64 outputTokens READ outputTokens NOTIFY changed)
  Q_PROPERTY(qint64 cacheReadTokens READ cacheReadTokens NOTIFY changed)
  // The oldest call waiting for a person (empty map when none): approvalId,
  // toolName, title, reason, rule, suggestedRules, preview; and how many wait.
  Q_PROPERTY(QVariantMap pendingApproval READ pendingApproval NOTIFY changed)
  Q_PROPERTY(int waitingApprovals READ waitingApprovals NOTIFY changed)
  // The mode a person chose in this conversation (permission_mode), if any.
  Q_PROPERTY(QString permissionMode READ permissionMode NOTIFY changed)
  // The goal /goal set; empty when none.
  Q_PROPERTY(QString goal READ goal NOTIFY changed)
  // A /plan turn completed and no input followed it: its plan waits for
  // "approve and run" (or more planning).
  Q_PROPERTY(bool planAwaitingApproval READ planAwaitingApproval NOTIFY changed)

 public:
  enum Role {
    KindRole = Qt::UserRole + 1,
    KeyRole,
    TextRole,
    InputKindRole,
    ClaimedRole,
    RedactedRole,
    ToolNameRole,
    TitleRole,
    StatusRole,
    ArgumentsRole,
    CommandRole,
    PathRole,
    DiffRole,
    ExitInfoRole,
    ExitBadRole,
    OutputRole,
    LevelRole,
    BlockedRole,
    PlanRole,
    SubagentSessionRole,
    SubagentAgentRole,
  };

  explicit ConversationModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  // Empties the view for another conversation.
  void clear(const QString& conversation_id);
  // One durable event (the SSE data). Returns false when it was ignored as a
  // duplicate (seq at or below lastSeq) or was not an event.
  bool apply_event(const nlohmann::json& event);
  // Announces the rows and changes of the events applied since the last call.
  void commit();
  // A status stream message (snapshot, state, delta, thinking, tool).
  void apply_status(const QString& type, const nlohmann::json& message);

  const std::vector<ViewItem>& items() const { return items_; }
  // Every seq accepted, in order (tests check it has no gap or duplicate).
  const std::vector<std::int64_t>& applied() const { return applied_; }

  QString conversationId() const { return conversation_id_; }
  qint64 lastSeq() const { return last_seq_; }
  QString driverState() const { return driver_state_; }
  QString activity() const { return activity_; }
  QString provider() const { return provider_; }
  QString model() const { return model_; }
  QString liveText() const { return live_text_; }
  QString liveThinking() const { return live_thinking_; }
  bool turnOpen() const { return !turn_id_.empty(); }
  qint64 inputTokens() const { return input_tokens_; }
  qint64 outputTokens() const { return output_tokens_; }
  qint64 cacheReadTokens() const { return cache_read_tokens_; }
  QVariantMap pendingApproval() const;
  int waitingApprovals() const;
  QString permissionMode() const { return permission_mode_; }
  QString goal() const { return goal_; }
  bool planAwaitingApproval() const;

 signals:
  void conversationChanged();
  void changed();
  void liveChanged();

 private:
  void apply_one(const nlohmann::json& event);
  void apply_assistant(const nlohmann::json& event);
  void apply_tool_result(const nlohmann::json& event);
  void apply_turn_end(const nlohmann::json& event);
  void apply_approval_requested(const nlohmann::json& event);  // conversation_approvals.cpp
  void apply_approval_decided(const nlohmann::json& event);
  void push(ViewItem item);
  void touch(std::size_t index);
  void notice(std::int64_t seq, const QString& level, const QString& text);
  void clear_live();

  QString conversation_id_;
  std::vector<ViewItem> items_;
  std::size_t announced_ = 0;              // rows the view knows of
  std::unordered_set<std::size_t> dirty_;  // announced rows changed since commit()
  std::vector<std::int64_t> applied_;
  std::unordered_map<std::string, std::size_t> call_index_;
  std::unordered_map<std::string, std::size_t> input_index_;
  std::unordered_set<std::string> done_steps_;
  std::unordered_set<std::string> ended_turns_;
  std::int64_t last_seq_ = 0;
  std::string turn_id_;
  QString driver_state_;
  QString activity_;
  QString provider_;
  QString model_;
  std::string live_turn_;
  std::int64_t live_step_ = 0;
  QString live_text_;
  QString live_thinking_;
  qint64 input_tokens_ = 0;
  qint64 output_tokens_ = 0;
  qint64 cache_read_tokens_ = 0;
  QString permission_mode_;
  QString goal_;
  std::unordered_set<std::string> plan_turns_;  // turns that took a /plan input
  std::string last_completed_turn_;             // the last turn that ended completed
  std::int64_t last_input_seq_ = 0;
  std::int64_t last_turn_end_seq_ = 0;
};

}  // namespace ava::desktop
