#include "ava/desktop/workbench.hpp"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>
#include <QUrlQuery>
#include <nlohmann/json.hpp>

#include "ava/protocol/wire.hpp"
#include "desktop/reply_json.hpp"

namespace ava::desktop {
namespace {

// What "approve and run" sends after a /plan turn (the web UI's words).
constexpr const char* approved_plan_text =
    "The plan is approved. Carry it out now, step by step, and verify the result.";

QString qs(const std::string& text) { return QString::fromStdString(text); }

// A conversation row for QML, through the protocol package's parser (the
// shapes the server writes), plus the fields only the listing has.
std::optional<QVariantMap> conversation_row(const nlohmann::json& json) {
  auto parsed = protocol::conversation_from_json(json);
  if (!parsed) return std::nullopt;
  const auto& c = *parsed;
  return QVariantMap{{"id", qs(c.id)},
                     {"projectId", qs(c.project_id)},
                     {"title", c.title.empty() ? QStringLiteral("New conversation") : qs(c.title)},
                     {"provider", qs(c.model.provider)},
                     {"model", qs(c.model.model)},
                     {"updatedMs", static_cast<qint64>(c.updated_ms)},
                     {"pinned", c.pinned},
                     {"archived", c.archived},
                     {"reviewedSeq", static_cast<qint64>(c.reviewed_seq)},
                     {"lastSeq", static_cast<qint64>(c.last_seq)},
                     {"unread", c.last_seq > c.reviewed_seq},
                     {"state", qs(json.value("state", std::string()))},
                     {"inputTokens", static_cast<qint64>(c.usage.input)},
                     {"outputTokens", static_cast<qint64>(c.usage.output)}};
}

}  // namespace

Workbench::Workbench(const Connection::Options& options, QObject* parent)
    : QObject(parent),
      options_(options),
      connection_(options),
      files_(connection_, default_pdf_helper()),
      machines_({"id", "hostname", "state", "message", "version", "pid", "remote", "selected",
                 "updatePending", "runningTurns"}),
      projects_({"id", "name", "path"}),
      conversations_({"id", "projectId", "title", "provider", "model", "updatedMs", "pinned",
                      "archived", "reviewedSeq", "lastSeq", "unread", "state", "inputTokens",
                      "outputTokens"}),
      providers_({"id", "kind", "baseUrl", "model", "configured"}),
      models_({"id", "providerKind", "contextWindow", "tools", "thinking"}),
      automations_({"id", "name", "scheduleKind", "schedule", "timeZone", "enabled", "nextRunMs",
                    "lastState", "lastError", "lastConversation", "prompt", "project"}),
      settings_(QDir(options.home).filePath(QStringLiteral("desktop.ini")), QSettings::IniFormat) {
  connect(&connection_, &Connection::connected, this, &Workbench::on_connected);
  load_machines();
  // machines.json is replaced atomically, so its folder is what changes.
  home_watch_.addPath(options.home);
  connect(&home_watch_, &QFileSystemWatcher::directoryChanged, this, [this] {
    load_machines();
    refresh_machines();
  });
  connect(&connection_, &Connection::stateChanged, this, &Workbench::refresh_machines);
  machine_poll_.setInterval(3000);
  connect(&machine_poll_, &QTimer::timeout, this, &Workbench::poll_machines);
  machine_poll_.start();
  connect(&status_stream_, &SseStream::events, this, &Workbench::on_status_events);
  connect(&conversation_stream_, &SseStream::events, this, &Workbench::on_conversation_events);
  connect(&status_stream_, &SseStream::ended, this, &Workbench::on_stream_ended);
  connect(&conversation_stream_, &SseStream::ended, this, &Workbench::on_stream_ended);
  connect(&subagent_stream_, &SseStream::events, this, &Workbench::on_subagent_events);
  connect(&subagent_stream_, &SseStream::ended, this, &Workbench::on_subagent_ended);
  list_refresh_.setSingleShot(true);
  list_refresh_.setInterval(150);
  connect(&list_refresh_, &QTimer::timeout, this, [this] {
    load_conversations();
    load_usage();
  });
  review_.setSingleShot(true);
  review_.setInterval(800);
  connect(&review_, &QTimer::timeout, this, &Workbench::mark_reviewed);
  project_id_ = settings_.value(QStringLiteral("selection/project")).toString();
  files_.set_project(project_id_);
}

void Workbench::on_connected() {
  refresh();
  files_.reload();
  open_status_stream();
  if (!conversation_.conversationId().isEmpty()) open_conversation_stream();
  // Input sent while the backend was away: the same inputId again, which the
  // backend acknowledges once (a duplicate if it had landed before).
  for (const auto& pending : outbox_)
    if (pending.machine == connection_.machine()) post_input(pending);
}

void Workbench::refresh() {
  connection_.get(QStringLiteral("/api/projects"), [this](const Reply& reply) {
    if (!reply.ok()) return;
    QList<QVariantMap> rows;
    const auto json = nlohmann::json::parse(reply.body.toStdString(), nullptr, false);
    for (const auto& entry : json.value("projects", nlohmann::json::array())) {
      auto project = protocol::project_from_json(entry);
      if (!project) continue;
      rows.push_back(
          {{"id", qs(project->id)}, {"name", qs(project->name)}, {"path", qs(project->path)}});
    }
    projects_.set_rows(rows);
    if ((project_id_.isEmpty() || projects_.indexOf(project_id_) < 0) && !rows.isEmpty())
      selectProject(rows.front().value("id").toString());
  });
  load_conversations();
  load_settings();
  load_usage();
}

void Workbench::load_conversations() {
  QUrlQuery query;
  if (!project_id_.isEmpty()) query.addQueryItem(QStringLiteral("project"), project_id_);
  query.addQueryItem(QStringLiteral("archived"), show_archived_ ? "all" : "false");
  connection_.get(
      QStringLiteral("/api/conversations?") + query.toString(), [this](const Reply& reply) {
        if (!reply.ok()) return;
        QList<QVariantMap> rows;
        const auto json = nlohmann::json::parse(reply.body.toStdString(), nullptr, false);
        for (const auto& entry : json.value("conversations", nlohmann::json::array()))
          if (auto row = conversation_row(entry)) rows.push_back(*row);
        conversations_.set_rows(rows);
        // The conversation open when the window last closed, once it is listed.
        if (!restored_ && conversationId().isEmpty()) {
          restored_ = true;
          const auto saved = settings_.value(QStringLiteral("selection/conversation")).toString();
          if (conversations_.indexOf(saved) >= 0) selectConversation(saved);
        }
        const int at = conversations_.indexOf(conversationId());
        if (at >= 0) listed_last_seq_ = conversations_.get(at).value("lastSeq").toLongLong();
        update_history_loaded();
        emit selectionChanged();  // the title may have changed
      });
}

void Workbench::load_settings() {
  connection_.get(QStringLiteral("/api/models"), [this](const Reply& reply) {
    if (!reply.ok()) return;
    const auto json = object_of(reply.body);
    default_provider_ = json.value("defaultProvider").toString();
    needs_setup_ = json.value("needsSetup").toBool();
    detected_servers_.clear();
    for (const auto& entry : json.value("detected").toArray()) {
      const auto server = entry.toObject();
      detected_servers_.push_back(
          QVariantMap{{"name", server.value("name").toString()},
                      {"kind", server.value("kind").toString()},
                      {"baseUrl", server.value("baseUrl").toString()},
                      {"models", server.value("models").toVariant().toStringList()},
                      {"inUse", server.value("inUse").toBool()}});
    }
    QList<QVariantMap> providers;
    for (const auto& entry : json.value("providers").toArray()) {
      const auto p = entry.toObject();
      providers.push_back({{"id", p.value("name").toString()},
                           {"kind", p.value("kind").toString()},
                           {"baseUrl", p.value("baseUrl").toString()},
                           {"model", p.value("model").toString()},
                           {"configured", p.value("configured").toBool()}});
    }
    providers_.set_rows(providers);
    QList<QVariantMap> models;
    for (const auto& entry : json.value("models").toArray()) {
      const auto m = entry.toObject();
      models.push_back({{"id", m.value("id").toString()},
                        {"providerKind", m.value("providerKind").toString()},
                        {"contextWindow", m.value("contextWindow").toInteger()},
                        {"tools", m.value("tools").toBool()},
                        {"thinking", m.value("thinking").toBool()}});
    }
    models_.set_rows(models);
    model_choices_.clear();
    for (const auto& provider : providers) {
      if (!provider.value("configured").toBool()) continue;
      const auto name = provider.value("id").toString();
      const auto kind = provider.value("kind").toString();
      QStringList names{provider.value("model").toString()};
      for (const auto& model : models)
        if (model.value("providerKind").toString() == kind) names << model.value("id").toString();
      names.removeDuplicates();
      names.removeAll(QString());
      for (const auto& model : names) model_choices_ << name + '/' + model;
    }
    emit settingsChanged();
  });
  connection_.get(QStringLiteral("/api/settings"), [this](const Reply& reply) {
    if (!reply.ok()) return;
    settings_file_ = object_of(reply.body).value("settingsFile").toString();
    emit settingsChanged();
  });
}

void Workbench::load_usage() {
  connection_.get(QStringLiteral("/api/usage"), [this](const Reply& reply) {
    if (!reply.ok()) return;
    total_usage_ = object_of(reply.body).value("total").toObject().toVariantMap();
    emit usageChanged();
  });
  if (conversationId().isEmpty()) return;
  connection_.get(QStringLiteral("/api/conversations/%1/usage").arg(conversationId()),
                  [this](const Reply& reply) {
                    if (!reply.ok()) return;
                    cost_usd_ = object_of(reply.body).value("costUsd").toDouble();
                    emit usageChanged();
                  });
}

void Workbench::load_permissions() {
  const QString id = conversationId();
  if (id.isEmpty()) {
    permissions_.clear();
    emit permissionsChanged();
    return;
  }
  connection_.get(QStringLiteral("/api/conversations/%1/permissions").arg(id),
                  [this, id](const Reply& reply) {
                    if (!reply.ok() || id != conversationId()) return;
                    permissions_ = object_of(reply.body).toVariantMap();
                    emit permissionsChanged();
                  });
}

void Workbench::load_commands() {
  const QString id = conversationId();
  commands_.clear();
  emit commandsChanged();
  if (id.isEmpty()) return;
  connection_.get(QStringLiteral("/api/conversations/%1/commands").arg(id),
                  [this, id](const Reply& reply) {
                    if (!reply.ok() || id != conversationId()) return;
                    commands_ = object_of(reply.body).value("commands").toArray().toVariantList();
                    emit commandsChanged();
                  });
}

QString Workbench::conversationTitle() const {
  const int at = conversations_.indexOf(conversationId());
  return at < 0 ? QString() : conversations_.get(at).value("title").toString();
}

void Workbench::setShowArchived(bool show) {
  if (show == show_archived_) return;
  show_archived_ = show;
  emit selectionChanged();
  load_conversations();
}

void Workbench::addProject(const QString& path) {
  connection_.send("POST", QStringLiteral("/api/projects"), body_of({{"path", path}}),
                   [this](const Reply& reply) {
                     if (!reply.ok()) return fail(error_of(reply));
                     selectProject(object_of(reply.body).value("id").toString());
                     refresh();
                   });
}

void Workbench::selectProject(const QString& id) {
  if (id == project_id_) return;
  project_id_ = id;
  settings_.setValue(QStringLiteral("selection/project"), id);
  files_.set_project(id);
  emit selectionChanged();
  load_conversations();
}

void Workbench::selectConversation(const QString& id) {
  if (id == conversationId()) return;
  closeSubagent();
  conversation_stream_.close();
  conversation_.clear(id);
  const int at = conversations_.indexOf(id);
  listed_last_seq_ = at < 0 ? 0 : conversations_.get(at).value("lastSeq").toLongLong();
  history_loaded_ = false;
  settings_.setValue(QStringLiteral("selection/conversation"), id);
  emit selectionChanged();
  emit historyLoadedChanged();
  if (id.isEmpty()) return;
  if (connection_.state() == QStringLiteral("connected")) open_conversation_stream();
  load_usage();
  load_permissions();
  load_commands();
}

void Workbench::newConversation(const QString& title) {
  if (project_id_.isEmpty()) return fail(QStringLiteral("Add a project first"));
  QJsonObject body{{"projectId", project_id_}};
  if (!title.isEmpty()) body.insert(QStringLiteral("title"), title);
  connection_.send("POST", QStringLiteral("/api/conversations"), body_of(body),
                   [this](const Reply& reply) {
                     if (!reply.ok()) return fail(error_of(reply));
                     const auto id = object_of(reply.body).value("id").toString();
                     load_conversations();
                     selectConversation(id);
                     emit conversationCreated(id);
                   });
}

bool Workbench::send(const QString& text, const QString& kind, const QStringList& images) {
  if (conversationId().isEmpty() || (text.trimmed().isEmpty() && images.isEmpty())) return false;
  auto attachments = read_attachments(images);
  if (!attachments) {
    fail(QString::fromStdString(attachments.error().message));
    return false;
  }
  const auto input_id = QStringLiteral("desktop-%1-%2")
                            .arg(QDateTime::currentMSecsSinceEpoch(), 0, 36)
                            .arg(++input_counter_);
  Pending pending{
      connection_.machine(), conversationId(), input_id,
      body_of(images.isEmpty() ? QJsonObject{{"kind", kind}, {"text", text}, {"inputId", input_id}}
                               : QJsonObject{{"kind", kind},
                                             {"text", text},
                                             {"inputId", input_id},
                                             {"attachments", *attachments}})};
  outbox_.push_back(pending);
  emit pendingChanged();
  if (connection_.state() == QStringLiteral("connected")) post_input(pending);
  return true;
}

void Workbench::post_input(const Pending& pending) {
  connection_.send("POST", QStringLiteral("/api/conversations/%1/input").arg(pending.conversation),
                   pending.body, [this, input_id = pending.input_id](const Reply& reply) {
                     if (reply.status == 0)
                       return;  // resent with the same inputId after the reconnect
                     for (qsizetype i = 0; i < outbox_.size(); ++i) {
                       if (outbox_[i].input_id != input_id) continue;
                       outbox_.removeAt(i);
                       emit pendingChanged();
                       break;
                     }
                     if (!reply.ok()) return fail(error_of(reply));
                     // /clear started a new conversation in this project: open it.
                     const auto fresh = object_of(reply.body).value("newConversationId").toString();
                     if (!fresh.isEmpty()) {
                       list_refresh_.start();
                       selectConversation(fresh);
                     }
                   });
}

void Workbench::approvePlan(const QString& mode) {
  if (conversationId().isEmpty()) return;
  // The mode first, so the turn that runs the plan starts in it; the input
  // goes through the outbox (exactly once across a reconnect).
  const QString id = conversationId();
  connection_.send("PUT", QStringLiteral("/api/conversations/%1/permissions").arg(id),
                   body_of({{"mode", mode}}), [this, id](const Reply& reply) {
                     if (reply.status != 0 && !reply.ok()) return fail(error_of(reply));
                     if (id == conversationId()) send(QString::fromUtf8(approved_plan_text));
                   });
}

void Workbench::control(const QString& action) {
  if (conversationId().isEmpty()) return;
  connection_.send("POST", QStringLiteral("/api/conversations/%1/%2").arg(conversationId(), action),
                   "{}", [this](const Reply& reply) {
                     if (reply.status != 0 && !reply.ok()) fail(error_of(reply));
                   });
}

void Workbench::setModel(const QString& provider, const QString& model) {
  if (conversationId().isEmpty()) return;
  connection_.send("PUT", QStringLiteral("/api/conversations/%1/model").arg(conversationId()),
                   body_of({{"provider", provider}, {"model", model}}), [this](const Reply& reply) {
                     if (reply.status != 0 && !reply.ok()) fail(error_of(reply));
                   });
}

void Workbench::decideApproval(const QString& approvalId, const QString& decision,
                               const QString& scope, const QString& rule, const QString& message) {
  if (conversationId().isEmpty() || approvalId.isEmpty()) return;
  QJsonObject body{{"decision", decision}, {"scope", scope}};
  if (!rule.isEmpty()) body["rule"] = rule;
  if (!message.isEmpty()) body["message"] = message;
  connection_.send(
      "POST",
      QStringLiteral("/api/conversations/%1/approvals/%2")
          .arg(conversationId(), QString::fromLatin1(QUrl::toPercentEncoding(approvalId))),
      body_of(body), [this](const Reply& reply) {
        if (reply.status != 0 && !reply.ok()) fail(error_of(reply));
      });
}

void Workbench::setPermissionMode(const QString& mode) {
  if (conversationId().isEmpty()) return;
  connection_.send("PUT", QStringLiteral("/api/conversations/%1/permissions").arg(conversationId()),
                   body_of({{"mode", mode}}), [this](const Reply& reply) {
                     if (reply.status != 0 && !reply.ok()) fail(error_of(reply));
                   });
}

void Workbench::patch(const QString& id, const QByteArray& body) {
  connection_.send("PATCH", QStringLiteral("/api/conversations/%1").arg(id), body,
                   [this](const Reply& reply) {
                     if (reply.status != 0 && !reply.ok()) return fail(error_of(reply));
                     list_refresh_.start();
                   });
}

void Workbench::setPinned(const QString& id, bool pinned) {
  patch(id, body_of({{"pinned", pinned}}));
}
void Workbench::setArchived(const QString& id, bool archived) {
  patch(id, body_of({{"archived", archived}}));
}
void Workbench::rename(const QString& id, const QString& title) {
  patch(id, body_of({{"title", title}}));
}

void Workbench::deleteConversation(const QString& id) {
  connection_.send("DELETE", QStringLiteral("/api/conversations/%1").arg(id), "{}",
                   [this, id](const Reply& reply) {
                     if (!reply.ok()) return fail(error_of(reply));
                     if (id == conversationId()) selectConversation({});
                     list_refresh_.start();
                   });
}

void Workbench::mark_reviewed() {
  const int at = conversations_.indexOf(conversationId());
  if (at < 0 || conversation_.lastSeq() <= conversations_.get(at).value("reviewedSeq").toLongLong())
    return;
  patch(conversationId(), body_of({{"reviewedSeq", conversation_.lastSeq()}}));
}

void Workbench::fail(const QString& message) {
  last_error_ = message;
  emit lastErrorChanged();
}

void Workbench::clearError() { fail(QString()); }

QVariant Workbench::setting(const QString& key, const QVariant& fallback) const {
  return settings_.value(key, fallback);
}

void Workbench::setSetting(const QString& key, const QVariant& value) {
  settings_.setValue(key, value);
}

void Workbench::open_status_stream() {
  status_stream_.open(connection_.network(),
                      connection_.request_for(QStringLiteral("/api/status/events")));
}

void Workbench::open_conversation_stream() {
  // The cursor: everything after the last event this view applied.
  conversation_stream_.open(
      connection_.network(),
      connection_.request_for(QStringLiteral("/api/conversations/%1/events?after=%2")
                                  .arg(conversationId())
                                  .arg(conversation_.lastSeq())));
}

void Workbench::on_stream_ended(int status) {
  if (status == 404) return fail(QStringLiteral("The conversation is gone"));
  connection_.lost();
}

void Workbench::on_conversation_events(const std::vector<transport::SseEvent>& batch) {
  bool turn_ended = false;
  bool permissions_changed = false;
  for (const auto& event : batch) {
    const auto json = nlohmann::json::parse(event.data, nullptr, false);
    if (!json.is_object()) continue;
    if (!conversation_.apply_event(json)) ++duplicates_;
    turn_ended = turn_ended || event.event == "turn_end";
    if (event.event == "permission_mode" || event.event == "approval_decided")
      permissions_changed = true;
  }
  conversation_.commit();
  if (permissions_changed) load_permissions();
  update_history_loaded();
  if (turn_ended) list_refresh_.start();
  review_.start();
}

void Workbench::on_status_events(const std::vector<transport::SseEvent>& batch) {
  for (const auto& event : batch) {
    const auto json = nlohmann::json::parse(event.data, nullptr, false);
    if (!json.is_object()) continue;
    if (event.event == "automation") {
      on_automation_event(json);
      continue;
    }
    if (event.event == "catalog" || event.event == "summary") {
      // A provider saved or a local server found: the settings and the
      // first-run panel follow.
      if (json.contains("provider") && !json["provider"].is_null()) load_settings();
      list_refresh_.start();
      continue;
    }
    // The list shows who waits for a person; its rows come from the list route.
    if (event.event == "state") list_refresh_.start();
    conversation_.apply_status(qs(event.event), json);
  }
}

void Workbench::update_history_loaded() {
  // Loaded: the stream has reached what the listing says the log holds (so
  // the listing must have been seen first).
  const bool listed = conversations_.indexOf(conversationId()) >= 0;
  const bool loaded =
      listed && conversation_.lastSeq() >= listed_last_seq_ && conversation_.lastSeq() > 0;
  if (loaded == history_loaded_) return;
  history_loaded_ = loaded;
  emit historyLoadedChanged();
}

}  // namespace ava::desktop
