#include "ava/desktop/connection.hpp"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

#include "ava/base/home.hpp"
#include "ava/machine/runtime_files.hpp"

namespace ava::desktop {
namespace {

// A backend that `ava backend start` launched gets this long to write
// backend.json before the desktop tries to start one again.
constexpr qint64 start_grace_ms = 20000;

QJsonObject object_of(const QByteArray& body) { return QJsonDocument::fromJson(body).object(); }

}  // namespace

std::optional<Endpoint> read_endpoint(const QString& home) {
  // The machine package reads backend.json for every client (size-bounded,
  // strict types), so the desktop never keeps a reader of its own.
  auto root = base::Home::at(home.toStdString());
  if (!root) return std::nullopt;
  auto file = machine::read_backend_file(*root);
  if (!file || file->pid <= 0 || file->port == 0 || file->token.empty()) return std::nullopt;
  return Endpoint{.pid = file->pid,
                  .port = file->port,
                  .token = QString::fromStdString(file->token),
                  .version = QString::fromStdString(file->version),
                  .machine_id = QString::fromStdString(file->machine_id),
                  .started_ms = file->started_ms};
}

Connection::Connection(Options options, QObject* parent)
    : QObject(parent), options_(std::move(options)) {
  retry_.setSingleShot(true);
  connect(&retry_, &QTimer::timeout, this, &Connection::attempt);
  // Streams are long-lived; keep-alive comments arrive every 15 s.
  network_.setTransferTimeout(0);
}

void Connection::start() { attempt(); }

void Connection::lost() {
  if (state_ != QStringLiteral("connected")) return;
  set_state(QStringLiteral("connecting"), QStringLiteral("Connection to the backend lost"));
  retry_later(200);
}

void Connection::retry_later(int ms) {
  if (!retry_.isActive()) retry_.start(ms);
}

void Connection::set_state(const QString& state, const QString& message) {
  state_ = state;
  message_ = message;
  emit stateChanged();
}

QNetworkRequest Connection::request_for(const QString& path_and_query) const {
  QNetworkRequest request(
      QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(endpoint_.port).arg(path_and_query)));
  if (link_ != nullptr) {
    // The remote backend's token never leaves the machine; the session
    // cookie is this link's own (browsers' jars mix ports of one host).
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    if (!link_->cookie().isEmpty()) request.setRawHeader("Cookie", link_->cookie());
  } else {
    request.setRawHeader("Authorization", "Bearer " + endpoint_.token.toUtf8());
  }
  request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                       QNetworkRequest::ManualRedirectPolicy);
  return request;
}

void Connection::get(const QString& path, Done done) { send("GET", path, {}, std::move(done)); }

void Connection::send(const QByteArray& verb, const QString& path, const QByteArray& json_body,
                      Done done) {
  auto request = request_for(path);
  request.setTransferTimeout(30000);
  if (!json_body.isEmpty())
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
  QNetworkReply* reply = network_.sendCustomRequest(request, verb, json_body);
  connect(reply, &QNetworkReply::finished, this,
          [this, reply, generation = generation_, done = std::move(done)] {
            reply->deleteLater();
            if (generation != generation_) return;  // from the machine before a switch
            Reply result{
                .status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                .body = reply->readAll()};
            if (result.status == 0) lost();
            if (done) done(result);
          });
}

void Connection::attempt() {
  ++attempts_;
  if (link_ != nullptr) return attempt_remote();
  auto endpoint = read_endpoint(options_.home);
  if (!endpoint) {
    start_backend();
    return;
  }
  // Health is asked of the process backend.json names, with its token.
  check_health(*endpoint);
}

void Connection::check_health(const Endpoint& candidate) {
  endpoint_ = candidate;
  auto request = request_for(QStringLiteral("/api/health"));
  request.setTransferTimeout(3000);
  QNetworkReply* reply = network_.get(request);
  connect(reply, &QNetworkReply::finished, this,
          [this, reply, candidate, generation = generation_] {
            reply->deleteLater();
            if (generation != generation_) return;
            on_health(
                candidate,
                Reply{.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                      .body = reply->readAll()});
          });
}

void Connection::use_remote(RemoteLink* link) {
  ++generation_;
  retry_.stop();
  QObject::disconnect(link_changed_);
  QObject::disconnect(link_ready_);
  link_ = link;
  endpoint_ = Endpoint{};
  machine_id_.clear();
  attempts_ = 0;
  unauthorized_since_ms_ = 0;
  if (link != nullptr) {
    link_changed_ = connect(link, &RemoteLink::changed, this, [this] {
      // A message while both are up changes nothing; the rest is followed.
      if (state_ == QStringLiteral("connected") && link_->state() == QStringLiteral("connected"))
        return;
      attempt();
    });
    link_ready_ = connect(link, &RemoteLink::ready, this, &Connection::attempt);
  }
  set_state(QStringLiteral("connecting"), QString());
  attempt();
}

void Connection::attempt_remote() {
  const RemoteLink::Tunnel& tunnel = link_->tunnel();
  if (link_->state() != QStringLiteral("connected")) {
    // The link does the SSH work; this side shows where it is.
    if (link_->state() == QStringLiteral("idle")) link_->start();
    set_state(link_->state() == QStringLiteral("connected") ? QStringLiteral("connecting")
                                                            : link_->state(),
              link_->message());
    return;
  }
  Endpoint endpoint{.pid = tunnel.pid,
                    .port = tunnel.local_port,
                    .version = tunnel.version,
                    .machine_id = tunnel.machine_id};
  if (!link_->cookie().isEmpty()) return check_health(endpoint);
  if (!tunnel.login_code.isEmpty()) {
    endpoint_ = endpoint;
    return log_in_remote();
  }
  // Signed out (the backend restarted) and no code yet: the link prints a
  // new one when it notices the restart; past a while it is asked again.
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  if (unauthorized_since_ms_ == 0) unauthorized_since_ms_ = now;
  if (now - unauthorized_since_ms_ > 10000) {
    unauthorized_since_ms_ = 0;
    link_->stop();
    link_->start();
    return;
  }
  set_state(QStringLiteral("connecting"),
            QStringLiteral("Waiting for a new login code from %1").arg(link_->name()));
  retry_later(500);
}

// The link's one-time code for a session cookie (POST /api/login), then
// the health check with it.
void Connection::log_in_remote() {
  auto request = request_for(QStringLiteral("/api/login"));
  request.setTransferTimeout(10000);
  request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
  const QByteArray body = QJsonDocument(QJsonObject{{"code", link_->tunnel().login_code}})
                              .toJson(QJsonDocument::Compact);
  link_->spend_code();
  QNetworkReply* reply = network_.post(request, body);
  connect(reply, &QNetworkReply::finished, this, [this, reply, generation = generation_] {
    reply->deleteLater();
    if (generation != generation_ || link_ == nullptr) return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray cookie =
        reply->rawHeader("Set-Cookie").split('\n').value(0).split(';').value(0);
    if (status < 200 || status > 299 || !cookie.contains('=')) {
      set_state(QStringLiteral("connecting"),
                QStringLiteral("Signing in to %1 failed (HTTP %2)").arg(link_->name()).arg(status));
      retry_later(1000);
      return;
    }
    link_->set_cookie(cookie);
    unauthorized_since_ms_ = 0;
    attempt();
  });
}

void Connection::on_health(const Endpoint& endpoint, const Reply& reply) {
  const auto health = object_of(reply.body);
  const bool same_process = reply.ok() && health.value("pid").toInteger() == endpoint.pid &&
                            health.value("machineId").toString() == endpoint.machine_id;
  if (!same_process && link_ != nullptr) {
    // Signed out by a restarted backend, or the tunnel between two
    // connections: the link reconnects and prints a new code.
    if (reply.status == 401) link_->set_cookie({});
    set_state(QStringLiteral("connecting"), QStringLiteral("Waiting for %1's backend (HTTP %2: %3)")
                                                .arg(link_->name())
                                                .arg(reply.status)
                                                .arg(QString::fromUtf8(reply.body.left(200))));
    retry_later(500);
    return;
  }
  if (!same_process) {
    // A stale backend.json (its backend was killed) or another process on
    // that port: start ours, or wait for the one being started.
    start_backend();
    return;
  }
  if (!machine_id_.isEmpty() && machine_id_ != endpoint.machine_id) {
    set_state(QStringLiteral("failed"),
              QStringLiteral("The backend of %1 now reports machine %2, not %3; not reconnecting")
                  .arg(options_.home, endpoint.machine_id, machine_id_));
    return;
  }
  machine_id_ = endpoint.machine_id;
  endpoint_ = endpoint;
  attempts_ = 0;
  starting_ = false;
  ++epoch_;
  set_state(QStringLiteral("connected"), QString());
  emit connected();
}

void Connection::start_backend() {
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  if (!options_.autostart) {
    set_state(QStringLiteral("connecting"),
              QStringLiteral("No backend answers for %1; waiting").arg(options_.home));
    retry_later(1000);
    return;
  }
  if (starting_ || now - started_ms_ < start_grace_ms) {
    retry_later(250);  // one is being started; wait for its backend.json
    return;
  }
  starting_ = true;
  started_ms_ = now;
  set_state(QStringLiteral("starting"), QStringLiteral("Starting ava-backend"));
  auto* process = new QProcess(this);
  auto environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("AVA_HOME"), options_.home);
  process->setProcessEnvironment(environment);
  process->setProcessChannelMode(QProcess::MergedChannels);
  // `ava backend start` forks the daemon into its own session and returns
  // once it is healthy; the daemon outlives this window.
  connect(process, &QProcess::finished, this, [this, process](int code) {
    const auto output = QString::fromUtf8(process->readAll()).trimmed();
    process->deleteLater();
    starting_ = false;
    started_ms_ = 0;  // it is up (or failed): a later loss may start another
    if (code != 0) {
      set_state(QStringLiteral("connecting"),
                QStringLiteral("ava backend start failed: ") + output);
      retry_later(2000);
      return;
    }
    attempt();
  });
  connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;
    process->deleteLater();
    starting_ = false;
    set_state(QStringLiteral("connecting"),
              QStringLiteral("cannot run %1 backend start").arg(options_.ava_binary));
    retry_later(2000);
  });
  process->start(options_.ava_binary, {QStringLiteral("backend"), QStringLiteral("start")});
}

SseStream::~SseStream() { close(); }

void SseStream::open(QNetworkAccessManager* network, QNetworkRequest request) {
  close();
  parser_ = std::make_unique<transport::SseParser>();
  request.setRawHeader("Accept", "text/event-stream");
  request.setTransferTimeout(0);
  reply_ = network->get(request);
  connect(reply_, &QNetworkReply::readyRead, this, &SseStream::on_ready);
  connect(reply_, &QNetworkReply::finished, this, &SseStream::on_finished);
}

void SseStream::close() {
  if (!reply_) return;
  QNetworkReply* reply = reply_;
  reply_ = nullptr;
  reply->disconnect(this);
  reply->abort();
  reply->deleteLater();
}

void SseStream::on_ready() {
  if (!reply_) return;
  const auto status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  const QByteArray chunk = reply_->readAll();
  if (status != 200) return;  // an error body; finished() reports it
  std::vector<transport::SseEvent> batch;
  if (!parser_->feed(std::string_view(chunk.constData(), static_cast<std::size_t>(chunk.size())),
                     batch)) {
    on_finished();
    return;
  }
  if (!batch.empty()) emit events(batch);
}

void SseStream::on_finished() {
  if (!reply_) return;
  const auto status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  close();
  emit ended(status);
}

}  // namespace ava::desktop
