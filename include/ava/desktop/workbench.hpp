#pragma once

#include <QFileSystemWatcher>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QSettings>
#include <QString>
#include <QTimer>
#include <QVariant>
#include <map>

#include "ava/desktop/connection.hpp"
#include "ava/desktop/conversation_model.hpp"
#include "ava/desktop/file_browser.hpp"
#include "ava/desktop/remote_link.hpp"
#include "ava/desktop/rows_model.hpp"

namespace ava::desktop {

// The desktop's state, behind the QML: the connection, the navigation
// models, the open conversation and its streams, the composer's commands.
// The backend owns every agent; this object only asks and follows.
class Workbench : public QObject {
  Q_OBJECT
  Q_PROPERTY(ava::desktop::Connection* connection READ connection CONSTANT)
  Q_PROPERTY(ava::desktop::ConversationModel* conversation READ conversation CONSTANT)
  // This computer and the machines of AVA_HOME/machines.json (workbench_
  // machines.cpp): id, hostname, state, message, version, pid, remote,
  // selected, updatePending, runningTurns (every machine with a live
  // connection is asked every few seconds). The selected one is the one
  // every view shows.
  Q_PROPERTY(ava::desktop::RowsModel* machines READ machines CONSTANT)
  Q_PROPERTY(QString machineName READ machineName NOTIFY machinesChanged)
  // The selected machine's host key waits for the person: machine, type,
  // fingerprint, message; empty otherwise.
  Q_PROPERTY(QVariantMap hostKeyPrompt READ hostKeyPrompt NOTIFY machinesChanged)
  // The selected machine's key file waits for its passphrase: machine, key.
  Q_PROPERTY(QVariantMap passphrasePrompt READ passphrasePrompt NOTIFY machinesChanged)
  Q_PROPERTY(ava::desktop::RowsModel* projects READ projects CONSTANT)
  Q_PROPERTY(ava::desktop::RowsModel* conversations READ conversations CONSTANT)
  Q_PROPERTY(ava::desktop::RowsModel* providers READ providers CONSTANT)
  Q_PROPERTY(ava::desktop::RowsModel* models READ models CONSTANT)
  Q_PROPERTY(QString projectId READ projectId NOTIFY selectionChanged)
  Q_PROPERTY(QString conversationId READ conversationId NOTIFY selectionChanged)
  Q_PROPERTY(QString conversationTitle READ conversationTitle NOTIFY selectionChanged)
  Q_PROPERTY(bool showArchived READ showArchived WRITE setShowArchived NOTIFY selectionChanged)
  Q_PROPERTY(bool historyLoaded READ historyLoaded NOTIFY historyLoadedChanged)
  Q_PROPERTY(QString defaultProvider READ defaultProvider NOTIFY settingsChanged)
  Q_PROPERTY(QString settingsFile READ settingsFile NOTIFY settingsChanged)
  Q_PROPERTY(QStringList modelChoices READ modelChoices NOTIFY settingsChanged)
  // No provider is configured: the first-run panel shows, offering the
  // local model servers the backend found ({name, kind, baseUrl, models,
  // inUse}) or a key.
  Q_PROPERTY(bool needsSetup READ needsSetup NOTIFY settingsChanged)
  Q_PROPERTY(QVariantList detectedServers READ detectedServers NOTIFY settingsChanged)
  Q_PROPERTY(QString setupError READ setupError NOTIFY setupChanged)
  Q_PROPERTY(bool setupBusy READ setupBusy NOTIFY setupChanged)
  Q_PROPERTY(QVariantMap totalUsage READ totalUsage NOTIFY usageChanged)
  Q_PROPERTY(double costUsd READ costUsd NOTIFY usageChanged)
  Q_PROPERTY(int pendingInputs READ pendingInputs NOTIFY pendingChanged)
  Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
  // The open conversation's GET /permissions: mode, modeSource, sandbox,
  // sandboxSupport, rules [{list, rule, source}] (deny first).
  Q_PROPERTY(QVariantMap permissions READ permissions NOTIFY permissionsChanged)
  // The open conversation's slash commands (GET /commands), for completion:
  // [{name, description, argumentHint, scope}].
  Q_PROPERTY(QVariantList commands READ commands NOTIFY commandsChanged)
  // A subagent's own log, opened from its task card (openSubagent): read
  // only, followed while it runs; subagentAgent is empty when none is open.
  Q_PROPERTY(ava::desktop::ConversationModel* subagent READ subagent CONSTANT)
  Q_PROPERTY(QString subagentAgent READ subagentAgent NOTIFY subagentChanged)
  // Automations (workbench_automations.cpp, /api/automations): the list
  // (id, name, scheduleKind, schedule, timeZone, enabled, nextRunMs,
  // lastState, lastError, lastConversation, prompt, project), one's history
  // (newest first), and the next runs of a schedule being typed.
  Q_PROPERTY(ava::desktop::RowsModel* automations READ automations CONSTANT)
  Q_PROPERTY(QVariantList automationHistory READ automationHistory NOTIFY automationHistoryChanged)
  Q_PROPERTY(QStringList schedulePreview READ schedulePreview NOTIFY schedulePreviewChanged)
  Q_PROPERTY(QString schedulePreviewError READ schedulePreviewError NOTIFY schedulePreviewChanged)
  // Analytics (workbench_analytics.cpp, GET /api/analytics): the summary as
  // the API answers it (totals, byDay, byProject, byModel, byProvider,
  // tools), empty until loaded; analyticsError when the last load failed.
  Q_PROPERTY(QVariantMap analytics READ analytics NOTIFY analyticsChanged)
  Q_PROPERTY(QString analyticsError READ analyticsError NOTIFY analyticsChanged)
  Q_PROPERTY(bool analyticsLoading READ analyticsLoading NOTIFY analyticsChanged)
  // The file panel of the selected project on the selected machine.
  Q_PROPERTY(ava::desktop::FileBrowser* files READ files CONSTANT)

 public:
  explicit Workbench(const Connection::Options& options, QObject* parent = nullptr);

  void start() { connection_.start(); }

  Connection* connection() { return &connection_; }
  ConversationModel* conversation() { return &conversation_; }
  ConversationModel* subagent() { return &subagent_; }
  FileBrowser* files() { return &files_; }
  RowsModel* automations() { return &automations_; }
  QVariantList automationHistory() const { return automation_history_; }
  QStringList schedulePreview() const { return schedule_preview_; }
  QString schedulePreviewError() const { return schedule_preview_error_; }
  QVariantMap analytics() const { return analytics_; }
  QString analyticsError() const { return analytics_error_; }
  bool analyticsLoading() const { return analytics_loading_; }
  QString subagentAgent() const { return subagent_agent_; }
  RowsModel* machines() { return &machines_; }
  RowsModel* projects() { return &projects_; }
  RowsModel* conversations() { return &conversations_; }
  RowsModel* providers() { return &providers_; }
  RowsModel* models() { return &models_; }
  QString projectId() const { return project_id_; }
  QString conversationId() const { return conversation_.conversationId(); }
  QString conversationTitle() const;
  bool showArchived() const { return show_archived_; }
  void setShowArchived(bool show);
  bool historyLoaded() const { return history_loaded_; }
  QString defaultProvider() const { return default_provider_; }
  QString settingsFile() const { return settings_file_; }
  // "provider/model" for each configured provider and its kind's models.
  QStringList modelChoices() const { return model_choices_; }
  bool needsSetup() const { return needs_setup_; }
  QVariantList detectedServers() const { return detected_servers_; }
  QString setupError() const { return setup_error_; }
  bool setupBusy() const { return setup_busy_; }
  QVariantMap totalUsage() const { return total_usage_; }
  double costUsd() const { return cost_usd_; }
  int pendingInputs() const { return static_cast<int>(outbox_.size()); }
  QString lastError() const { return last_error_; }
  QVariantMap permissions() const { return permissions_; }
  QVariantList commands() const { return commands_; }
  // Events the stream delivered again (at or below the cursor); the server
  // promises none, tests check it.
  int duplicates() const { return duplicates_; }

  QString machineName() const { return connection_.machine(); }
  QVariantMap hostKeyPrompt() const;
  QVariantMap passphrasePrompt() const;
  // Saves a machine as `ava machine add --no-test` does (transport libssh2
  // or openssh, the system ssh client); the first
  // selection connects (and asks about an unknown host key). False and
  // lastError when the name or destination is refused.
  Q_INVOKABLE bool addMachine(const QString& name, const QString& destination,
                              const QString& identity = {},
                              const QString& transport = QStringLiteral("libssh2"));
  Q_INVOKABLE void removeMachine(const QString& name);
  // "local" or a saved machine: every view follows it. Selecting a machine
  // whose connection failed tries again.
  Q_INVOKABLE void selectMachine(const QString& name);
  // The person compared the fingerprint shown: exactly that key is accepted.
  Q_INVOKABLE void acceptHostKey(const QString& name, const QString& fingerprint);
  // The passphrase typed for the key asked about (empty: skip that key).
  Q_INVOKABLE void answerPassphrase(const QString& name, const QString& passphrase);

  Q_INVOKABLE void refresh();
  Q_INVOKABLE void addProject(const QString& path);
  Q_INVOKABLE void selectProject(const QString& id);
  Q_INVOKABLE void selectConversation(const QString& id);
  Q_INVOKABLE void newConversation(const QString& title = {});
  // Queues input with a client inputId: resent after a reconnect until
  // acknowledged, and acknowledged once by the backend however often sent.
  // `images`: files (paths or file: URLs) sent as attachments; false and
  // lastError when one is refused (the composer keeps what was typed).
  Q_INVOKABLE bool send(const QString& text, const QString& kind = QStringLiteral("followup"),
                        const QStringList& images = {});
  // What the composer shows for a file it is given (workbench_images.cpp):
  // path, name, size, url, mediaType, ok, or error (not an image of a kind
  // the providers take, over 5 MiB, unreadable).
  Q_INVOKABLE QVariantMap imageInfo(const QString& file) const;
  Q_INVOKABLE void pause() { control(QStringLiteral("pause")); }
  Q_INVOKABLE void resume() { control(QStringLiteral("resume")); }
  Q_INVOKABLE void abort() { control(QStringLiteral("abort")); }
  Q_INVOKABLE void setModel(const QString& provider, const QString& model);
  // Answers the open conversation's approval: decision allow|deny, scope
  // once|conversation|project (project: `rule` goes to the project's
  // .ava/settings.local.json), a note for the model. A 409 (answered
  // already, elsewhere or by an abort) is reported in lastError.
  Q_INVOKABLE void decideApproval(const QString& approvalId, const QString& decision,
                                  const QString& scope = QStringLiteral("once"),
                                  const QString& rule = {}, const QString& message = {});
  // The open conversation's permission mode: ask, accept-edits, plan, auto.
  Q_INVOKABLE void setPermissionMode(const QString& mode);
  // After a /plan turn: switches to `mode` and sends the approval that starts
  // the next turn with the plan.
  Q_INVOKABLE void approvePlan(const QString& mode);
  // workbench_subagent.cpp: the open conversation's subagent `sessionId`
  // (a task call's details) into `subagent`; closeSubagent() stops following.
  Q_INVOKABLE void openSubagent(const QString& sessionId, const QString& agent);
  Q_INVOKABLE void closeSubagent();
  // Automations: `fields` as POST /api/automations takes them (name,
  // project, prompt, cron|every|at, timeZone, overlap, missed, ...).
  Q_INVOKABLE void loadAutomations();
  Q_INVOKABLE void addAutomation(const QVariantMap& fields);
  Q_INVOKABLE void setAutomationEnabled(const QString& id, bool enabled);
  Q_INVOKABLE void runAutomation(const QString& id);
  Q_INVOKABLE void removeAutomation(const QString& id);
  Q_INVOKABLE void loadAutomationHistory(const QString& id);
  Q_INVOKABLE void previewSchedule(const QString& kind, const QString& schedule,
                                   const QString& timeZone);
  // `filters`: project, model, provider, from, to (YYYY-MM-DD), each
  // optional; an answer to an earlier call that comes late is dropped.
  Q_INVOKABLE void loadAnalytics(const QVariantMap& filters);
  Q_INVOKABLE void setPinned(const QString& id, bool pinned);
  Q_INVOKABLE void setArchived(const QString& id, bool archived);
  Q_INVOKABLE void rename(const QString& id, const QString& title);
  // Deletes a conversation for good (DELETE /api/conversations/{id}); the
  // sidebar asks first.
  Q_INVOKABLE void deleteConversation(const QString& id);
  Q_INVOKABLE void clearError();
  // The first-run panel's choices: a detected server with one of its
  // models, or a key for a cloud provider; either becomes the default.
  Q_INVOKABLE void useDetectedServer(const QString& name, const QString& baseUrl,
                                     const QString& model);
  Q_INVOKABLE void saveProviderKey(const QString& provider, const QString& key);
  // desktop.ini in AVA_HOME: window geometry, theme, last selection.
  Q_INVOKABLE QVariant setting(const QString& key, const QVariant& fallback = {}) const;
  Q_INVOKABLE void setSetting(const QString& key, const QVariant& value);

 signals:
  void selectionChanged();
  void machinesChanged();
  void historyLoadedChanged();
  void settingsChanged();
  void setupChanged();
  void usageChanged();
  void pendingChanged();
  void lastErrorChanged();
  void permissionsChanged();
  void commandsChanged();
  void subagentChanged();
  void automationHistoryChanged();
  void schedulePreviewChanged();
  void analyticsChanged();
  // A run of an automation failed: name, error, the run's conversation.
  void automationFailed(const QString& name, const QString& error, const QString& conversationId);
  // A conversation this client created (newConversation) is selected.
  void conversationCreated(const QString& id);

 private:
  struct Pending {
    QString machine;  // resent only to the machine it was written for
    QString conversation;
    QString input_id;
    QByteArray body;
  };
  void on_connected();
  void open_status_stream();
  void open_conversation_stream();
  void on_conversation_events(const std::vector<transport::SseEvent>& batch);
  void on_status_events(const std::vector<transport::SseEvent>& batch);
  void on_stream_ended(int status);
  void open_subagent_stream();
  void on_subagent_events(const std::vector<transport::SseEvent>& batch);
  void on_subagent_ended(int status);
  void on_automation_event(const nlohmann::json& message);
  void load_conversations();
  void load_settings();
  void save_default_provider(const QString& name, const QJsonObject& update);
  void load_usage();
  void load_permissions();
  void load_commands();
  void post_input(const Pending& pending);
  Result<QJsonArray> read_attachments(const QStringList& images) const;
  void control(const QString& action);
  void patch(const QString& id, const QByteArray& body);
  void update_history_loaded();
  void mark_reviewed();
  void fail(const QString& message);
  void refresh_machines();
  void poll_machines();
  RemoteLink* link_for(const QString& name);

  Connection::Options options_;
  Connection connection_;
  FileBrowser files_;                     // after connection_, which it uses
  std::map<QString, RemoteLink*> links_;  // children; one per machine used
  std::map<QString, int> running_turns_;  // machine -> GET /api/status "active"
  // machines.json as last read (name, destination): read at start and when
  // AVA_HOME changes (`ava machine add` elsewhere), not at every state change.
  QList<QPair<QString, QString>> saved_machines_;
  QFileSystemWatcher home_watch_;
  void load_machines();
  QTimer machine_poll_;
  ConversationModel conversation_;
  RowsModel machines_;
  RowsModel projects_;
  RowsModel conversations_;
  RowsModel providers_;
  RowsModel models_;
  SseStream status_stream_;
  SseStream conversation_stream_;
  ConversationModel subagent_;
  SseStream subagent_stream_;
  QString subagent_agent_;
  RowsModel automations_;
  QVariantList automation_history_;
  QString history_for_;
  QStringList schedule_preview_;
  QString schedule_preview_error_;
  QVariantMap analytics_;
  QString analytics_error_;
  bool analytics_loading_ = false;
  int analytics_generation_ = 0;
  QSettings settings_;
  QTimer list_refresh_;
  QTimer review_;
  QString project_id_;
  bool show_archived_ = false;
  bool restored_ = false;
  bool history_loaded_ = false;
  qint64 listed_last_seq_ = 0;
  QString default_provider_;
  QString settings_file_;
  bool needs_setup_ = false;
  QVariantList detected_servers_;
  QString setup_error_;
  bool setup_busy_ = false;
  QStringList model_choices_;
  QVariantMap total_usage_;
  double cost_usd_ = 0;
  QList<Pending> outbox_;
  QString last_error_;
  QVariantMap permissions_;
  QVariantList commands_;
  int duplicates_ = 0;
  int input_counter_ = 0;
};

}  // namespace ava::desktop
