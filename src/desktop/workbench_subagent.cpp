// A subagent's log beside its parent conversation: the task card's "Open its
// log" follows GET /api/conversations/{id}/subagents/{child}/events into a
// second ConversationModel, read only.
#include <QTimer>
#include <nlohmann/json.hpp>

#include "ava/desktop/workbench.hpp"

namespace ava::desktop {

void Workbench::openSubagent(const QString& sessionId, const QString& agent) {
  if (conversationId().isEmpty() || sessionId.isEmpty()) return;
  subagent_stream_.close();
  subagent_.clear(sessionId);
  subagent_agent_ = agent.isEmpty() ? QStringLiteral("subagent") : agent;
  emit subagentChanged();
  if (connection_.state() == QStringLiteral("connected")) open_subagent_stream();
}

void Workbench::closeSubagent() {
  if (subagent_agent_.isEmpty()) return;
  subagent_stream_.close();
  subagent_.clear({});
  subagent_agent_.clear();
  emit subagentChanged();
}

void Workbench::open_subagent_stream() {
  subagent_stream_.open(
      connection_.network(),
      connection_.request_for(QStringLiteral("/api/conversations/%1/subagents/%2/events?after=%3")
                                  .arg(conversationId(), subagent_.conversationId())
                                  .arg(subagent_.lastSeq())));
}

void Workbench::on_subagent_events(const std::vector<transport::SseEvent>& batch) {
  for (const auto& event : batch) {
    const auto json = nlohmann::json::parse(event.data, nullptr, false);
    if (json.is_object()) subagent_.apply_event(json);
  }
  subagent_.commit();
}

void Workbench::on_subagent_ended(int status) {
  if (subagent_agent_.isEmpty()) return;
  if (status == 404) {
    fail(QStringLiteral("The subagent's log is not there"));
    return closeSubagent();
  }
  // Dropped: follow again from the cursor while it is still open.
  QTimer::singleShot(1000, this, [this, id = subagent_.conversationId()] {
    if (!subagent_agent_.isEmpty() && subagent_.conversationId() == id &&
        connection_.state() == QStringLiteral("connected"))
      open_subagent_stream();
  });
}

}  // namespace ava::desktop
