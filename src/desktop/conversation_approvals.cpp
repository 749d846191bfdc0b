// Calls waiting for a person, as the conversation's log tells them:
// approval_requested makes a tool row wait and gives the card what to show;
// approval_decided (or the call's result, or its turn's end) ends the wait.
// Mirrors web/src/model/conversation.ts.
#include <nlohmann/json.hpp>

#include "ava/desktop/conversation_model.hpp"
#include "desktop/event_fields.hpp"

namespace ava::desktop {
namespace {

using json = nlohmann::json;

using fields::qs;
using fields::str;

// Each line of `text` behind a marker, as a diff shows removed and added text.
QString marked(const std::string& text, QChar marker) {
  QStringList lines = qs(text).split(QLatin1Char('\n'));
  if (!lines.isEmpty() && lines.back().isEmpty()) lines.removeLast();
  for (auto& line : lines) line = marker + line;
  return lines.join(QLatin1Char('\n'));
}

// What the call will do, in the card: the command, an edit's old and new
// text (each edit of a batch), a write's content, or the arguments.
QString preview_of(const QString& tool, const json& args) {
  if (tool == QStringLiteral("bash")) return qs(str(args, "command"));
  if (tool == QStringLiteral("edit")) {
    const json edits =
        args.contains("edits") && args["edits"].is_array() ? args["edits"] : json::array({args});
    QStringList parts;
    for (const auto& edit : edits) {
      parts << marked(str(edit, "old_string"), QLatin1Char('-')) + QLatin1Char('\n') +
                   marked(str(edit, "new_string"), QLatin1Char('+'));
    }
    return parts.join(QStringLiteral("\n@@\n"));
  }
  if (tool == QStringLiteral("write")) return marked(str(args, "content"), QLatin1Char('+'));
  return qs(args.dump(2, ' ', false, json::error_handler_t::replace));
}

}  // namespace

void ConversationModel::apply_approval_requested(const json& event) {
  const auto found = call_index_.find(str(event, "call_id"));
  if (found == call_index_.end()) return;
  auto& item = items_[found->second];
  if (item.status != QStringLiteral("running")) return;
  item.status = QStringLiteral("waiting");
  item.approval_id = qs(str(event, "approval_id"));
  item.approval_reason = qs(str(event, "reason"));
  item.approval_rule = qs(str(event, "rule"));
  item.suggested_rules.clear();
  for (const auto& rule : event.value("suggested_rules", json::array())) {
    if (rule.is_string()) item.suggested_rules << qs(rule.get<std::string>());
  }
  const auto arguments = event.value("arguments", json::object());
  item.preview = preview_of(item.tool_name, arguments.is_object() ? arguments : json::object());
  touch(found->second);
}

void ConversationModel::apply_approval_decided(const json& event) {
  const auto found = call_index_.find(str(event, "call_id"));
  if (found == call_index_.end()) return;
  auto& item = items_[found->second];
  if (item.approval_id != qs(str(event, "approval_id"))) return;
  item.approval_id.clear();
  if (item.status == QStringLiteral("waiting")) item.status = QStringLiteral("running");
  touch(found->second);
}

QVariantMap ConversationModel::pendingApproval() const {
  for (const auto& item : items_) {
    if (item.kind != ViewItem::Kind::tool || item.approval_id.isEmpty()) continue;
    return {{QStringLiteral("approvalId"), item.approval_id},
            {QStringLiteral("callId"), item.call_id},
            {QStringLiteral("toolName"), item.tool_name},
            {QStringLiteral("title"), item.title},
            {QStringLiteral("reason"), item.approval_reason},
            {QStringLiteral("rule"), item.approval_rule},
            {QStringLiteral("suggestedRules"), item.suggested_rules},
            {QStringLiteral("preview"), item.preview}};
  }
  return {};
}

int ConversationModel::waitingApprovals() const {
  int waiting = 0;
  for (const auto& item : items_) {
    if (item.kind == ViewItem::Kind::tool && !item.approval_id.isEmpty()) ++waiting;
  }
  return waiting;
}

}  // namespace ava::desktop
