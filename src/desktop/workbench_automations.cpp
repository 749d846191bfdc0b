// Automations in the desktop (docs/automations.md), through /api/automations:
// the list, a form's fields, run now, pause and resume, history, the next
// runs of a schedule being typed, and a notice when a run fails.
#include <QJsonArray>
#include <QUrl>
#include <nlohmann/json.hpp>

#include "ava/desktop/workbench.hpp"
#include "desktop/reply_json.hpp"

namespace ava::desktop {
namespace {

QVariantMap automation_row(const QJsonObject& a) {
  const auto last = a.value("lastRun").toObject();
  return {{"id", a.value("id").toString()},
          {"name", a.value("name").toString()},
          {"scheduleKind", a.value("scheduleKind").toString()},
          {"schedule", a.value("schedule").toString()},
          {"timeZone", a.value("timeZone").toString()},
          {"enabled", a.value("enabled").toBool()},
          {"nextRunMs", a.value("nextRunMs").toVariant()},
          {"lastState", last.value("state").toString()},
          {"lastError", last.value("error").toString()},
          {"lastConversation", last.value("conversationId").toString()},
          {"prompt", a.value("prompt").toString()},
          {"project", a.value("project").toString()}};
}

QString path_of(const QString& id, const QString& rest = {}) {
  return QStringLiteral("/api/automations/%1%2")
      .arg(QString::fromUtf8(QUrl::toPercentEncoding(id)), rest);
}

}  // namespace

void Workbench::loadAutomations() {
  connection_.get(QStringLiteral("/api/automations"), [this](const Reply& reply) {
    if (!reply.ok()) return;
    QList<QVariantMap> rows;
    for (const auto& item : object_of(reply.body).value("automations").toArray()) {
      rows.push_back(automation_row(item.toObject()));
    }
    automations_.set_rows(std::move(rows));
  });
}

void Workbench::addAutomation(const QVariantMap& fields) {
  connection_.send("POST", QStringLiteral("/api/automations"),
                   body_of(QJsonObject::fromVariantMap(fields)), [this](const Reply& reply) {
                     if (!reply.ok()) return fail(error_of(reply));
                     loadAutomations();
                   });
}

void Workbench::setAutomationEnabled(const QString& id, bool enabled) {
  connection_.send("PATCH", path_of(id), body_of({{"enabled", enabled}}),
                   [this](const Reply& reply) {
                     if (!reply.ok()) return fail(error_of(reply));
                     loadAutomations();
                   });
}

void Workbench::runAutomation(const QString& id) {
  connection_.send("POST", path_of(id, QStringLiteral("/run")), "{}",
                   [this, id](const Reply& reply) {
                     if (!reply.ok()) return fail(error_of(reply));
                     loadAutomations();
                     if (history_for_ == id) loadAutomationHistory(id);
                   });
}

void Workbench::removeAutomation(const QString& id) {
  connection_.send("DELETE", path_of(id), "{}", [this](const Reply& reply) {
    if (!reply.ok()) return fail(error_of(reply));
    loadAutomations();
  });
}

void Workbench::loadAutomationHistory(const QString& id) {
  history_for_ = id;
  connection_.get(path_of(id, QStringLiteral("/history")), [this, id](const Reply& reply) {
    if (!reply.ok() || id != history_for_) return;
    automation_history_ = object_of(reply.body).value("occurrences").toArray().toVariantList();
    emit automationHistoryChanged();
  });
}

void Workbench::previewSchedule(const QString& kind, const QString& schedule,
                                const QString& timeZone) {
  const QString path =
      QStringLiteral("/api/automations/preview?%1=%2&timeZone=%3")
          .arg(kind, QString::fromUtf8(QUrl::toPercentEncoding(schedule)),
               QString::fromUtf8(QUrl::toPercentEncoding(timeZone.isEmpty() ? "UTC" : timeZone)));
  connection_.get(path, [this](const Reply& reply) {
    schedule_preview_.clear();
    schedule_preview_error_.clear();
    if (reply.ok()) {
      for (const auto& time : object_of(reply.body).value("local").toArray()) {
        schedule_preview_ << time.toString();
      }
    } else {
      schedule_preview_error_ = error_of(reply);
    }
    emit schedulePreviewChanged();
  });
}

void Workbench::on_automation_event(const nlohmann::json& message) {
  loadAutomations();
  const auto id = QString::fromStdString(message.value("automationId", std::string()));
  if (id == history_for_) loadAutomationHistory(id);
  const auto occurrence = message.value("occurrence", nlohmann::json::object());
  if (!occurrence.is_object() || occurrence.value("state", std::string()) != "failed") return;
  const auto name = QString::fromStdString(message.value("name", std::string()));
  const auto error = QString::fromStdString(occurrence.value("error", std::string()));
  emit automationFailed(name, error,
                        QString::fromStdString(occurrence.value("conversationId", std::string())));
  fail(QStringLiteral("Automation %1 failed: %2").arg(name, error));
}

}  // namespace ava::desktop
