#include "ava/desktop/conversation_model.hpp"

#include <nlohmann/json.hpp>

#include "desktop/event_fields.hpp"

namespace ava::desktop {
namespace {

using json = nlohmann::json;

using fields::num;
using fields::qs;
using fields::str;

std::string step_key(const std::string& turn, std::int64_t step) {
  return turn + "#" + std::to_string(step);
}

// The text of tool result content blocks (images as placeholders).
QString content_text(const json& content) {
  if (!content.is_array()) return {};
  QStringList parts;
  for (const auto& block : content) {
    const auto type = str(block, "type");
    if (type == "text" && !str(block, "text").empty()) parts << qs(str(block, "text"));
    if (type == "image") parts << qs("[image " + str(block, "media_type") + "]");
  }
  return parts.join('\n');
}

// The card's header and the fields its body shows, from the call's arguments.
void describe_call(ViewItem& item, const json& args) {
  const auto path = str(args, "path").empty() ? str(args, "file_path") : str(args, "path");
  if (!path.empty()) item.path = qs(path);
  if (item.tool_name == "bash") item.command = qs(str(args, "command"));
  if (item.tool_name == "bash" && item.command.isEmpty()) item.command = item.arguments;
  const bool file_tool =
      item.tool_name == "edit" || item.tool_name == "read" || item.tool_name == "write";
  item.title = file_tool ? item.tool_name + ' ' + item.path : item.tool_name;
}

// "exit 0 · 12 ms" from a bash result's details.
void describe_result(ViewItem& item, const json& details) {
  if (!details.is_object()) return;
  if (const auto path = str(details, "path"); !path.empty()) {
    item.path = qs(path);
    describe_call(item, json::object({{"path", path}}));
  }
  item.diff = qs(str(details, "diff"));
  if (const auto sub = details.find("subagent"); sub != details.end() && sub->is_object()) {
    item.subagent_session = qs(str(*sub, "sessionId"));
    item.subagent_agent = qs(str(*sub, "agent"));
  }
  if (item.tool_name != "bash") return;
  QStringList parts;
  const bool has_exit = details.contains("exit_code") && details["exit_code"].is_number();
  const bool has_signal = details.contains("signal") && details["signal"].is_number();
  if (has_exit) parts << QStringLiteral("exit %1").arg(num(details, "exit_code"));
  if (has_signal) parts << QStringLiteral("signal %1").arg(num(details, "signal"));
  const bool timed_out = details.value("timed_out", false) == true;
  const bool cancelled = details.value("cancelled", false) == true;
  if (timed_out) parts << QStringLiteral("timed out");
  if (cancelled) parts << QStringLiteral("cancelled");
  if (details.contains("duration_ms")) {
    const auto ms = num(details, "duration_ms");
    parts << (ms < 1000 ? QStringLiteral("%1 ms").arg(ms)
                        : QStringLiteral("%1 s").arg(static_cast<double>(ms) / 1000.0, 0, 'f', 1));
  }
  item.exit_info = parts.join(QStringLiteral(" · "));
  item.exit_bad =
      (has_exit && num(details, "exit_code") != 0) || has_signal || timed_out || cancelled;
}

QString turn_end_label(const std::string& reason) {
  if (reason == "aborted") return QStringLiteral("Turn aborted");
  if (reason == "interrupted") return QStringLiteral("Turn interrupted");
  if (reason == "max_steps") return QStringLiteral("Turn stopped at the step limit");
  if (reason == "error") return QStringLiteral("Turn failed");
  return QStringLiteral("Turn ended (%1)").arg(qs(reason));
}

}  // namespace

ConversationModel::ConversationModel(QObject* parent) : QAbstractListModel(parent) {}

int ConversationModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(announced_);
}

QHash<int, QByteArray> ConversationModel::roleNames() const {
  return {{KindRole, "kind"},
          {KeyRole, "itemKey"},
          {TextRole, "text"},
          {InputKindRole, "inputKind"},
          {ClaimedRole, "claimed"},
          {RedactedRole, "redacted"},
          {ToolNameRole, "toolName"},
          {TitleRole, "title"},
          {StatusRole, "status"},
          {ArgumentsRole, "arguments"},
          {CommandRole, "command"},
          {PathRole, "path"},
          {DiffRole, "diff"},
          {ExitInfoRole, "exitInfo"},
          {ExitBadRole, "exitBad"},
          {OutputRole, "output"},
          {LevelRole, "level"},
          {BlockedRole, "blocked"},
          {PlanRole, "plan"},
          {SubagentSessionRole, "subagentSession"},
          {SubagentAgentRole, "subagentAgent"}};
}

QVariant ConversationModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || static_cast<std::size_t>(index.row()) >= announced_)
    return {};
  const auto& item = items_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case KindRole: {
      static const char* const names[] = {"user", "assistant", "thinking",
                                          "tool", "notice",    "command"};
      return QString::fromLatin1(names[static_cast<int>(item.kind)]);
    }
    case KeyRole: return item.key;
    case TextRole: return item.text;
    case InputKindRole: return item.input_kind;
    case ClaimedRole: return item.claimed;
    case BlockedRole: return item.blocked;
    case PlanRole: return item.plan;
    case SubagentSessionRole: return item.subagent_session;
    case SubagentAgentRole: return item.subagent_agent;
    case RedactedRole: return item.redacted;
    case ToolNameRole: return item.tool_name;
    case TitleRole: return item.title;
    case StatusRole: return item.status;
    case ArgumentsRole: return item.arguments;
    case CommandRole: return item.command;
    case PathRole: return item.path;
    case DiffRole: return item.diff;
    case ExitInfoRole: return item.exit_info;
    case ExitBadRole: return item.exit_bad;
    case OutputRole: return item.output;
    case LevelRole: return item.level;
    default: return {};
  }
}

void ConversationModel::clear(const QString& conversation_id) {
  beginResetModel();
  items_.clear();
  announced_ = 0;
  dirty_.clear();
  applied_.clear();
  call_index_.clear();
  input_index_.clear();
  done_steps_.clear();
  ended_turns_.clear();
  last_seq_ = 0;
  turn_id_.clear();
  driver_state_.clear();
  activity_.clear();
  provider_.clear();
  model_.clear();
  live_turn_.clear();
  live_step_ = 0;
  live_text_.clear();
  live_thinking_.clear();
  input_tokens_ = output_tokens_ = cache_read_tokens_ = 0;
  permission_mode_.clear();
  goal_.clear();
  plan_turns_.clear();
  last_completed_turn_.clear();
  last_input_seq_ = last_turn_end_seq_ = 0;
  conversation_id_ = conversation_id;
  endResetModel();
  emit conversationChanged();
  emit changed();
  emit liveChanged();
}

bool ConversationModel::apply_event(const json& event) {
  const auto seq = num(event, "seq", -1);
  if (seq <= last_seq_) return false;  // seen already (or not an event)
  apply_one(event);
  last_seq_ = seq;
  applied_.push_back(seq);
  return true;
}

void ConversationModel::commit() {
  for (const auto row : dirty_) {
    const auto at = index(static_cast<int>(row));
    emit dataChanged(at, at);
  }
  dirty_.clear();
  if (items_.size() > announced_) {
    beginInsertRows({}, static_cast<int>(announced_), static_cast<int>(items_.size()) - 1);
    announced_ = items_.size();
    endInsertRows();
  }
  emit changed();
}

void ConversationModel::push(ViewItem item) { items_.push_back(std::move(item)); }

void ConversationModel::touch(std::size_t index) {
  if (index < announced_) dirty_.insert(index);
}

void ConversationModel::notice(std::int64_t seq, const QString& level, const QString& text) {
  push({.kind = ViewItem::Kind::notice,
        .key = QStringLiteral("n%1").arg(seq),
        .text = text,
        .level = level});
}

void ConversationModel::clear_live() {
  if (live_turn_.empty() && live_text_.isEmpty() && live_thinking_.isEmpty()) return;
  live_turn_.clear();
  live_step_ = 0;
  live_text_.clear();
  live_thinking_.clear();
  emit liveChanged();
}

void ConversationModel::apply_one(const json& event) {
  const auto type = str(event, "type");
  const auto seq = num(event, "seq");
  if (type == "session_start") {
    provider_ = qs(str(event, "provider"));
    model_ = qs(str(event, "model"));
  } else if (type == "input") {
    const auto input_id = str(event, "input_id");
    const auto attachments = event.value("attachments", json::array());
    QString text = qs(str(event, "text"));
    if (attachments.is_array() && !attachments.empty())
      text += QStringLiteral("\n\n[%1 image(s) attached]").arg(attachments.size());
    input_index_[input_id] = items_.size();
    push({.kind = ViewItem::Kind::user,
          .key = QStringLiteral("u%1").arg(seq),
          .text = text,
          .input_kind = qs(str(event, "kind")),
          .input_id = qs(input_id),
          .plan = event.value("plan", false) == true});
    last_input_seq_ = seq;
  } else if (type == "command_output") {
    push({.kind = ViewItem::Kind::command,
          .key = QStringLiteral("c%1").arg(seq),
          .text = qs(str(event, "text")),
          .output = qs(str(event, "output"))});
  } else if (type == "goal_set") {
    goal_ = qs(str(event, "goal"));
  } else if (type == "input_claimed") {
    const auto ids = event.value("input_ids", json::array());
    for (const auto& id : ids) {
      if (!id.is_string()) continue;
      auto found = input_index_.find(id.get<std::string>());
      if (found == input_index_.end()) continue;
      items_[found->second].claimed = true;
      if (items_[found->second].plan) plan_turns_.insert(str(event, "turn_id"));
      touch(found->second);
    }
  } else if (type == "input_blocked") {
    auto found = input_index_.find(str(event, "input_id"));
    if (found != input_index_.end()) {
      auto reason = qs(str(event, "reason"));
      if (reason.isEmpty())
        reason = QStringLiteral("blocked by a %1 hook").arg(qs(str(event, "hook")));
      items_[found->second].blocked = reason;
      touch(found->second);
    }
  } else if (type == "turn_start") {
    turn_id_ = str(event, "turn_id");
  } else if (type == "step_start") {
    if (const auto model = str(event, "model"); !model.empty()) model_ = qs(model);
  } else if (type == "assistant") {
    apply_assistant(event);
  } else if (type == "tool_result") {
    apply_tool_result(event);
  } else if (type == "usage") {
    const auto usage = event.value("usage", json::object());
    input_tokens_ += num(usage, "input_tokens");
    output_tokens_ += num(usage, "output_tokens");
    cache_read_tokens_ += num(usage, "cache_read_tokens");
  } else if (type == "turn_end") {
    apply_turn_end(event);
  } else if (type == "approval_requested") {
    apply_approval_requested(event);
  } else if (type == "approval_decided") {
    apply_approval_decided(event);
  } else if (type == "hook") {
    // A hook that blocked, decided or failed says so; quiet runs do not.
    const auto outcome = str(event, "outcome");
    if (!outcome.empty() && outcome != "ok") {
      const auto reason = qs(str(event, "reason"));
      notice(seq,
             outcome == "error" || outcome == "timeout" ? QStringLiteral("error")
                                                        : QStringLiteral("info"),
             QStringLiteral("Hook %1 (%2) %3%4")
                 .arg(qs(str(event, "hook")), qs(str(event, "command")), qs(outcome),
                      reason.isEmpty() ? QString() : QStringLiteral(": ") + reason));
    }
  } else if (type == "permission_mode") {
    permission_mode_ = qs(str(event, "mode"));
    notice(seq, QStringLiteral("info"),
           QStringLiteral("Permission mode set to %1").arg(permission_mode_));
  } else if (type == "paused") {
    notice(seq, QStringLiteral("info"), QStringLiteral("Paused"));
  } else if (type == "resumed") {
    notice(seq, QStringLiteral("info"), QStringLiteral("Resumed"));
  } else if (type == "model_changed") {
    provider_ = qs(str(event, "provider"));
    model_ = qs(str(event, "model"));
    notice(seq, QStringLiteral("info"),
           QStringLiteral("Model changed to %1/%2").arg(provider_, model_));
  } else if (type == "compaction") {
    const auto before = num(event, "tokens_before");
    notice(seq, QStringLiteral("info"),
           before > 0 ? QStringLiteral("Context compacted (%1 tokens before)").arg(before)
                      : QStringLiteral("Context compacted"));
  } else if (type == "recovered") {
    QStringList notes;
    for (const auto& note : event.value("notes", json::array()))
      if (note.is_string()) notes << qs(note.get<std::string>());
    notice(seq, QStringLiteral("interrupted"),
           notes.isEmpty() ? QStringLiteral("Recovered after a crash")
                           : QStringLiteral("Recovered after a crash: ") + notes.join("; "));
  } else if (type == "error") {
    const auto code = str(event, "code");
    const auto message = qs(str(event, "message"));
    notice(seq, QStringLiteral("error"),
           code.empty() ? QStringLiteral("Error: ") + message
                        : QStringLiteral("Error (%1): %2").arg(qs(code), message));
  }
  // step_end and unknown kinds change nothing the view shows.
}

bool ConversationModel::planAwaitingApproval() const {
  return !last_completed_turn_.empty() && plan_turns_.contains(last_completed_turn_) &&
         turn_id_.empty() && last_input_seq_ < last_turn_end_seq_;
}

void ConversationModel::apply_assistant(const json& event) {
  const auto turn = str(event, "turn_id");
  const auto step = num(event, "step");
  const auto seq = num(event, "seq");
  done_steps_.insert(step_key(turn, step));
  if (live_turn_ == turn && live_step_ <= step) clear_live();
  QString text;
  int text_start = -1;
  auto flush_text = [&] {
    if (text_start >= 0 && !text.trimmed().isEmpty()) {
      push({.kind = ViewItem::Kind::assistant,
            .key = QStringLiteral("a%1.%2").arg(seq).arg(text_start),
            .text = text});
    }
    text.clear();
    text_start = -1;
  };
  const auto content = event.value("content", json::array());
  int i = -1;
  for (const auto& block : content) {
    ++i;
    const auto type = str(block, "type");
    if (type == "text") {
      if (text_start < 0) text_start = i;
      text += qs(str(block, "text"));
      continue;
    }
    flush_text();
    if (type == "thinking") {
      const bool redacted = str(block, "text").empty() && !str(block, "redacted_data").empty();
      if (!str(block, "text").empty() || redacted) {
        push({.kind = ViewItem::Kind::thinking,
              .key = QStringLiteral("a%1.%2").arg(seq).arg(i),
              .text = qs(str(block, "text")),
              .redacted = redacted});
      }
    } else if (type == "tool_call") {
      auto call_id = str(block, "id");
      if (call_id.empty()) call_id = std::to_string(seq) + "." + std::to_string(i);
      ViewItem item{.kind = ViewItem::Kind::tool,
                    .key = qs("t" + call_id),
                    .call_id = qs(call_id),
                    .turn_id = turn,
                    .tool_name = qs(str(block, "name").empty() ? "tool" : str(block, "name")),
                    .status = QStringLiteral("running"),
                    .arguments = qs(str(block, "arguments"))};
      const auto args = json::parse(str(block, "arguments"), nullptr, false);
      describe_call(item, args.is_object() ? args : json::object());
      call_index_[call_id] = items_.size();
      push(std::move(item));
    }
  }
  flush_text();
}

void ConversationModel::apply_tool_result(const json& event) {
  auto status = qs(str(event, "status"));
  static const QStringList known = {"ok", "error", "interrupted", "skipped"};
  if (!known.contains(status)) status = QStringLiteral("error");
  const auto call_id = str(event, "call_id");
  const auto details = event.value("details", json());
  auto found = call_index_.find(call_id);
  if (found == call_index_.end()) {
    // A result without its call (e.g. after compaction): shown on its own.
    ViewItem item{.kind = ViewItem::Kind::tool,
                  .key = qs("t" + call_id),
                  .call_id = qs(call_id),
                  .turn_id = str(event, "turn_id"),
                  .tool_name = qs(str(event, "tool_name"))};
    describe_call(item, json::object());
    call_index_[call_id] = items_.size();
    push(std::move(item));
    found = call_index_.find(call_id);
  }
  auto& item = items_[found->second];
  item.status = status;
  item.approval_id.clear();
  item.output = content_text(event.value("content", json()));
  describe_result(item, details);
  touch(found->second);
}

void ConversationModel::apply_turn_end(const json& event) {
  const auto turn = str(event, "turn_id");
  ended_turns_.insert(turn);
  last_turn_end_seq_ = num(event, "seq");
  last_completed_turn_ = str(event, "reason") == "completed" ? turn : std::string();
  if (turn_id_ == turn) turn_id_.clear();
  if (live_turn_ == turn) clear_live();
  for (const auto& [call, index] : call_index_) {
    auto& item = items_[index];
    if (item.turn_id == turn &&
        (item.status == QStringLiteral("running") || item.status == QStringLiteral("waiting"))) {
      item.status = QStringLiteral("interrupted");
      item.approval_id.clear();
      touch(index);
    }
  }
  const auto reason = str(event, "reason");
  if (reason.empty() || reason == "completed") return;
  const auto level = reason == "error"       ? QStringLiteral("error")
                     : reason == "max_steps" ? QStringLiteral("info")
                                             : QStringLiteral("interrupted");
  const auto message = qs(str(event, "message"));
  const auto label = turn_end_label(reason);
  notice(num(event, "seq"), level,
         message.isEmpty() ? label : label + QStringLiteral(": ") + message);
}

void ConversationModel::apply_status(const QString& type, const json& message) {
  if (type == QStringLiteral("snapshot")) {
    QString state = QStringLiteral("idle");
    QString activity;
    for (const auto& entry : message.value("conversations", json::array())) {
      if (qs(str(entry, "conversationId")) != conversation_id_) continue;
      state = qs(str(entry, "state"));
      activity = qs(str(entry, "activity"));
    }
    driver_state_ = state;
    activity_ = activity;
    emit changed();
    return;
  }
  if (qs(str(message, "conversationId")) != conversation_id_) return;
  if (type == QStringLiteral("state")) {
    driver_state_ = qs(str(message, "state"));
    if (driver_state_ != QStringLiteral("running") && driver_state_ != QStringLiteral("pausing"))
      activity_.clear();
    emit changed();
  } else if (type == QStringLiteral("tool")) {
    const bool finished = message.value("finished", false) == true;
    const auto label = qs(str(message, "label"));
    activity_ =
        finished
            ? QString()
            : (label.isEmpty() ? QStringLiteral("Running ") + qs(str(message, "toolName")) : label);
    emit changed();
  } else if (type == QStringLiteral("delta") || type == QStringLiteral("thinking")) {
    const auto turn = str(message, "turnId");
    const auto step = num(message, "step");
    // Late: the durable event of this step already landed, or its turn ended.
    if (done_steps_.contains(step_key(turn, step)) || ended_turns_.contains(turn)) return;
    if (live_turn_ == turn && step < live_step_) return;  // an older step, out of order
    if (live_turn_ != turn || step != live_step_) {
      live_turn_ = turn;
      live_step_ = step;
      live_text_.clear();
      live_thinking_.clear();
    }
    (type == QStringLiteral("delta") ? live_text_ : live_thinking_) += qs(str(message, "text"));
    emit liveChanged();
  }
}

}  // namespace ava::desktop
