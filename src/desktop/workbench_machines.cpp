// The machines the workbench shows: this computer and the remote machines
// of AVA_HOME/machines.json. A remote machine is reached through its
// RemoteLink (a supervised `ava machine connect`); the selected machine is
// the one every view (projects, conversations, settings) follows.
#include <filesystem>

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

#include "ava/base/home.hpp"
#include "ava/desktop/workbench.hpp"
#include "ava/remote/machines.hpp"
#include "ava/remote/ssh_config.hpp"

namespace ava::desktop {
namespace {

const QString local_name = QStringLiteral("local");

QString qs(const std::string& text) { return QString::fromStdString(text); }

Result<remote::MachineStore> store_of(const QString& home) {
  AVA_TRY(auto root, base::Home::at(home.toStdString()));
  return remote::MachineStore(root);
}

}  // namespace

RemoteLink* Workbench::link_for(const QString& name) {
  if (auto found = links_.find(name); found != links_.end()) return found->second;
  auto* link = new RemoteLink(name, options_.ava_binary, options_.home, this);
  connect(link, &RemoteLink::changed, this, &Workbench::refresh_machines);
  links_.emplace(name, link);
  return link;
}

void Workbench::load_machines() {
  saved_machines_.clear();
  auto store = store_of(options_.home);
  auto machines =
      store ? store->list() : Result<std::vector<remote::Machine>>(std::unexpected(store.error()));
  if (!machines) return fail(qs(machines.error().message));
  for (const auto& machine : *machines) {
    saved_machines_.push_back({qs(machine.name), qs(machine.destination)});
  }
}

void Workbench::refresh_machines() {
  const QString selected = connection_.machine();
  QList<QVariantMap> rows;
  const bool local_selected = selected == local_name;
  rows.push_back(
      {{"id", local_name},
       {"hostname", QStringLiteral("This computer")},
       {"state", local_selected ? connection_.state() : QStringLiteral("idle")},
       {"message", local_selected ? connection_.message() : QString()},
       {"version", local_selected ? connection_.version() : QString()},
       {"pid", local_selected ? connection_.pid() : 0},
       {"remote", false},
       {"selected", local_selected},
       {"updatePending", false},
       {"runningTurns", running_turns_.contains(local_name) ? running_turns_[local_name] : 0}});
  for (const auto& [name, destination] : saved_machines_) {
    const auto found = links_.find(name);
    const RemoteLink* link = found == links_.end() ? nullptr : found->second;
    const bool is_selected = name == selected;
    QString state = link != nullptr ? link->state() : QStringLiteral("idle");
    QString message = link != nullptr ? link->message() : QString();
    // The selected machine's state is the connection's: "connected" only
    // once signed in through the tunnel.
    if (is_selected) {
      state = connection_.state();
      message = connection_.message();
    }
    rows.push_back({{"id", name},
                    {"hostname", destination},
                    {"state", state},
                    {"message", message},
                    {"version", link != nullptr ? link->tunnel().version : QString()},
                    {"pid", link != nullptr ? link->tunnel().pid : 0},
                    {"remote", true},
                    {"selected", is_selected},
                    {"updatePending", link != nullptr && link->tunnel().update_pending},
                    {"runningTurns", running_turns_.contains(name) ? running_turns_[name] : 0}});
  }
  machines_.set_rows(rows);
  emit machinesChanged();
}

// How many turns run on each machine with a live connection: this
// computer's backend (through backend.json when another machine is shown)
// and every remote machine signed in through its tunnel.
void Workbench::poll_machines() {
  auto ask = [this](const QString& name, QNetworkRequest request) {
    request.setTransferTimeout(2500);
    QNetworkReply* reply = connection_.network()->get(request);
    connect(reply, &QNetworkReply::finished, this, [this, reply, name] {
      reply->deleteLater();
      const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
      const auto json = QJsonDocument::fromJson(reply->readAll()).object();
      const int active = status == 200 ? json.value(QStringLiteral("active")).toInt() : 0;
      if (running_turns_[name] == active) return;
      running_turns_[name] = active;
      refresh_machines();
    });
  };
  auto loopback = [](int port) {
    return QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1/api/status").arg(port)));
  };
  if (connection_.state() == QStringLiteral("connected")) {
    ask(connection_.machine(), connection_.request_for(QStringLiteral("/api/status")));
  }
  if (connection_.machine() != local_name) {
    if (auto endpoint = read_endpoint(options_.home)) {
      auto request = loopback(endpoint->port);
      request.setRawHeader("Authorization", "Bearer " + endpoint->token.toUtf8());
      ask(local_name, request);
    }
  }
  for (const auto& [name, link] : links_) {
    if (name == connection_.machine() || link->state() != QStringLiteral("connected") ||
        link->cookie().isEmpty())
      continue;
    auto request = loopback(link->tunnel().local_port);
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    request.setRawHeader("Cookie", link->cookie());
    ask(name, request);
  }
}

QVariantMap Workbench::hostKeyPrompt() const {
  const auto found = links_.find(connection_.machine());
  if (found == links_.end() || found->second->state() != QStringLiteral("hostkey")) return {};
  const RemoteLink* link = found->second;
  return {{"machine", link->name()},
          {"type", link->host_key_type()},
          {"fingerprint", link->host_key_fingerprint()},
          {"message", link->message()}};
}

QVariantMap Workbench::passphrasePrompt() const {
  const auto found = links_.find(connection_.machine());
  if (found == links_.end() || found->second->state() != QStringLiteral("passphrase")) return {};
  return {{"machine", found->second->name()}, {"key", found->second->passphrase_key()}};
}

void Workbench::answerPassphrase(const QString& name, const QString& passphrase) {
  if (const auto found = links_.find(name); found != links_.end()) {
    found->second->answer_passphrase(passphrase);
  }
}

bool Workbench::addMachine(const QString& name, const QString& destination, const QString& identity,
                           const QString& transport) {
  remote::Machine machine;
  auto parsed = remote::parse_transport(transport.toStdString());
  if (!parsed) {
    fail(qs(parsed.error().message));
    return false;
  }
  machine.transport = *parsed;
  machine.name = name.trimmed().toStdString();
  machine.destination = destination.trimmed().toStdString();
  if (!identity.trimmed().isEmpty()) {
    machine.identity_file = std::filesystem::absolute(identity.trimmed().toStdString());
  }
  auto store = store_of(options_.home);
  auto added = store ? store->add(machine) : Result<void>(std::unexpected(store.error()));
  if (!added) {
    fail(qs(added.error().message));
    return false;
  }
  load_machines();
  refresh_machines();
  return true;
}

void Workbench::removeMachine(const QString& name) {
  if (name == local_name) return;
  if (connection_.machine() == name) selectMachine(local_name);
  if (auto found = links_.find(name); found != links_.end()) {
    delete found->second;  // stops its `ava machine connect`
    links_.erase(found);
  }
  auto store = store_of(options_.home);
  auto removed =
      store ? store->remove(name.toStdString()) : Result<void>(std::unexpected(store.error()));
  if (!removed) fail(qs(removed.error().message));
  load_machines();
  refresh_machines();
}

void Workbench::selectMachine(const QString& name) {
  if (name == connection_.machine()) {
    // Once more: a failed connection is tried again.
    if (auto found = links_.find(name);
        found != links_.end() && found->second->state() == QStringLiteral("failed")) {
      found->second->start();
    }
    return;
  }
  RemoteLink* link = nullptr;
  if (name != local_name) {
    auto store = store_of(options_.home);
    auto machine = store ? store->get(name.toStdString())
                         : Result<remote::Machine>(std::unexpected(store.error()));
    if (!machine) return fail(qs(machine.error().message));
    link = link_for(name);
  }
  // Nothing of the machine before stays on screen.
  closeSubagent();
  status_stream_.close();
  conversation_stream_.close();
  conversation_.clear({});
  projects_.set_rows({});
  conversations_.set_rows({});
  project_id_.clear();
  restored_ = true;
  history_loaded_ = false;
  permissions_.clear();
  commands_.clear();
  emit selectionChanged();
  emit historyLoadedChanged();
  emit permissionsChanged();
  emit commandsChanged();
  emit pendingChanged();
  connection_.use_remote(link);
  refresh_machines();
}

void Workbench::acceptHostKey(const QString& name, const QString& fingerprint) {
  const auto found = links_.find(name);
  if (found == links_.end() || !fingerprint.startsWith(QStringLiteral("SHA256:"))) return;
  found->second->start(fingerprint);
}

}  // namespace ava::desktop
