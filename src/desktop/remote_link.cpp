#include "ava/desktop/remote_link.hpp"

#include <algorithm>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QUrl>
#include <QUrlQuery>

namespace ava::desktop {
namespace {

constexpr int max_backoff_ms = 30000;
constexpr qsizetype kept_error_bytes = 4096;

// The code of "http://127.0.0.1:PORT/?login=CODE"; empty if there is none.
QString login_code_of(const QString& url) {
  return QUrlQuery(QUrl(url).query()).queryItemValue(QStringLiteral("login"));
}

// Failures that reaching the machine again may cure; the others (a host
// key, a refused sign-in, another machine id, a failed install) wait for
// the person.
bool transient(const QString& code) {
  return code == QStringLiteral("unavailable") || code == QStringLiteral("timeout") ||
         code == QStringLiteral("io");
}

}  // namespace

RemoteLink::RemoteLink(QString name, QString ava_binary, QString home, QObject* parent)
    : QObject(parent),
      name_(std::move(name)),
      ava_binary_(std::move(ava_binary)),
      home_(std::move(home)) {
  retry_.setSingleShot(true);
  connect(&retry_, &QTimer::timeout, this, [this] { start(); });
}

RemoteLink::~RemoteLink() {
  // The owner may be half destroyed: nobody is told about this last stop.
  blockSignals(true);
  stop();
}

void RemoteLink::set_state(const QString& state, const QString& message) {
  state_ = state;
  message_ = message;
  emit changed();
}

void RemoteLink::start(const QString& accept_host_key) {
  if (process_ != nullptr) return;
  retry_.stop();
  stopping_ = false;
  buffer_.clear();
  errors_.clear();
  last_failure_code_.clear();
  host_key_type_.clear();
  host_key_fingerprint_.clear();
  passphrase_key_.clear();
  process_ = new QProcess(this);
  auto environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("AVA_HOME"), home_);
  process_->setProcessEnvironment(environment);
  connect(process_, &QProcess::readyReadStandardOutput, this, &RemoteLink::on_output);
  connect(process_, &QProcess::readyReadStandardError, this, [this] {
    errors_ += process_->readAllStandardError();
    if (errors_.size() > kept_error_bytes) errors_ = errors_.right(kept_error_bytes);
    // Progress ("uploading ava 0.1.0 (48 MB)") while it connects.
    const auto lines = errors_.trimmed().split('\n');
    if (state_ == QStringLiteral("connecting") && !lines.isEmpty()) {
      set_state(state_, QString::fromUtf8(lines.last()).remove(QStringLiteral("ava machine: ")));
    }
  });
  connect(process_, &QProcess::finished, this,
          [this](int code, QProcess::ExitStatus) { on_finished(code); });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) on_finished(-1);
  });
  // No terminal: a key's passphrase is asked through stdout and stdin.
  QStringList arguments{QStringLiteral("machine"), QStringLiteral("connect"), name_,
                        QStringLiteral("--json"), QStringLiteral("--passphrase-stdin")};
  if (!accept_host_key.isEmpty())
    arguments << QStringLiteral("--accept-host-key") << accept_host_key;
  set_state(QStringLiteral("connecting"), QStringLiteral("Connecting to %1").arg(name_));
  process_->start(ava_binary_, arguments);
}

void RemoteLink::stop() {
  retry_.stop();
  if (process_ == nullptr) return;
  stopping_ = true;
  QProcess* process = process_;
  // SIGTERM: the child closes its forwarded connections and the SSH session.
  process->terminate();
  if (!process->waitForFinished(3000)) {
    process->kill();
    process->waitForFinished(1000);
  }
  if (process_ != nullptr) on_finished(0);
}

void RemoteLink::answer_passphrase(const QString& passphrase) {
  if (process_ == nullptr || passphrase_key_.isEmpty()) return;
  QByteArray line = passphrase.toUtf8();
  line.replace('\n', "").replace('\r', "");
  line += '\n';
  process_->write(line);
  line.fill('\0');
  passphrase_key_.clear();
  set_state(QStringLiteral("connecting"), QStringLiteral("Signing in to %1").arg(name_));
}

void RemoteLink::on_output() {
  buffer_ += process_->readAllStandardOutput();
  for (qsizetype end = buffer_.indexOf('\n'); end >= 0; end = buffer_.indexOf('\n')) {
    const QByteArray line = buffer_.left(end);
    buffer_.remove(0, end + 1);
    on_line(line);
  }
  if (buffer_.size() > max_line) {
    buffer_.clear();
    last_failure_code_ = QStringLiteral("protocol");
    message_ = QStringLiteral("ava machine connect printed a line longer than 64 KiB");
    process_->kill();
  }
}

void RemoteLink::on_line(const QByteArray& line) {
  QJsonParseError error;
  const auto document = QJsonDocument::fromJson(line, &error);
  if (error.error != QJsonParseError::NoError || !document.isObject()) return;
  const QJsonObject json = document.object();
  const QString event = json.value(QStringLiteral("event")).toString();
  if (event.isEmpty() || event == QStringLiteral("backendRestarted")) {
    // The first line (the tunnel is up), or another backend behind it.
    if (event.isEmpty()) {
      tunnel_.local_port = json.value(QStringLiteral("localPort")).toInt();
      tunnel_.machine_id = json.value(QStringLiteral("machineId")).toString();
    }
    tunnel_.login_code = login_code_of(json.value(QStringLiteral("url")).toString());
    tunnel_.pid = json.value(QStringLiteral("pid")).toInteger();
    tunnel_.version = json.value(QStringLiteral("version")).toString();
    tunnel_.update_pending = json.value(QStringLiteral("updatePending")).toBool();
    cookie_.clear();
    backoff_ms_ = 1000;
    set_state(QStringLiteral("connected"),
              tunnel_.update_pending ? QStringLiteral("update pending") : QString());
    emit ready();
  } else if (event == QStringLiteral("reconnecting")) {
    set_state(QStringLiteral("reconnecting"), json.value(QStringLiteral("message")).toString());
  } else if (event == QStringLiteral("reconnected")) {
    tunnel_.pid = json.value(QStringLiteral("pid")).toInteger(tunnel_.pid);
    tunnel_.update_pending = json.value(QStringLiteral("updatePending")).toBool();
    set_state(QStringLiteral("connected"),
              tunnel_.update_pending ? QStringLiteral("update pending") : QString());
  } else if (event == QStringLiteral("passphrase")) {
    passphrase_key_ = json.value(QStringLiteral("key")).toString();
    set_state(QStringLiteral("passphrase"),
              QStringLiteral("The key %1 needs its passphrase").arg(passphrase_key_));
  } else if (event == QStringLiteral("failed")) {
    last_failure_code_ = json.value(QStringLiteral("code")).toString();
    message_ = json.value(QStringLiteral("message")).toString();
    const auto key = json.value(QStringLiteral("hostKey")).toObject();
    host_key_type_ = key.value(QStringLiteral("type")).toString();
    host_key_fingerprint_ = key.value(QStringLiteral("fingerprint")).toString();
  }
}

void RemoteLink::on_finished(int code) {
  if (process_ == nullptr) return;
  process_->deleteLater();
  process_ = nullptr;
  tunnel_ = Tunnel{};
  cookie_.clear();
  passphrase_key_.clear();
  if (stopping_) {
    stopping_ = false;
    set_state(QStringLiteral("idle"), QString());
    return;
  }
  if (!host_key_fingerprint_.isEmpty()) {
    set_state(QStringLiteral("hostkey"), message_);
    return;
  }
  QString why = message_;
  if (last_failure_code_.isEmpty()) {
    const auto lines = errors_.trimmed().split('\n');
    why = code == -1 ? QStringLiteral("cannot run %1").arg(ava_binary_)
                     : QString::fromUtf8(lines.isEmpty() ? QByteArray() : lines.last());
  }
  // A child that ended without saying why (killed, crashed) is retried too.
  if (code != -1 && (last_failure_code_.isEmpty() || transient(last_failure_code_))) {
    set_state(QStringLiteral("reconnecting"),
              QStringLiteral("%1; retrying in %2 s").arg(why).arg(backoff_ms_ / 1000));
    retry_.start(backoff_ms_);
    backoff_ms_ = std::min(backoff_ms_ * 2, max_backoff_ms);
    return;
  }
  set_state(QStringLiteral("failed"), why);
}

}  // namespace ava::desktop
