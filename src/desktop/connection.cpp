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
  request.setRawHeader("Authorization", "Bearer " + endpoint_.token.toUtf8());
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
  connect(reply, &QNetworkReply::finished, this, [this, reply, done = std::move(done)] {
    reply->deleteLater();
    Reply result{.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                 .body = reply->readAll()};
    if (result.status == 0) lost();
    if (done) done(result);
  });
}

void Connection::attempt() {
  ++attempts_;
  auto endpoint = read_endpoint(options_.home);
  if (!endpoint) {
    start_backend();
    return;
  }
  // Health is asked of the process backend.json names, with its token.
  const Endpoint& candidate = *endpoint;
  endpoint_ = candidate;
  auto request = request_for(QStringLiteral("/api/health"));
  request.setTransferTimeout(3000);
  QNetworkReply* reply = network_.get(request);
  connect(reply, &QNetworkReply::finished, this, [this, reply, candidate] {
    reply->deleteLater();
    on_health(candidate,
              Reply{.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                    .body = reply->readAll()});
  });
}

void Connection::on_health(const Endpoint& endpoint, const Reply& reply) {
  const auto health = object_of(reply.body);
  const bool same_process = reply.ok() && health.value("pid").toInteger() == endpoint.pid &&
                            health.value("machineId").toString() == endpoint.machine_id;
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
