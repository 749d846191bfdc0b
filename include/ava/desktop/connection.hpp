#pragma once

#include <functional>
#include <memory>

#include <QByteArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QTimer>
#include <QUrl>

#include "ava/desktop/remote_link.hpp"
#include "ava/transport/sse.hpp"

namespace ava::desktop {

// What backend.json says (written by ava-backend when it is ready).
struct Endpoint {
  qint64 pid = 0;
  int port = 0;
  QString token;
  QString version;
  QString machine_id;
  qint64 started_ms = 0;
};
// Reads AVA_HOME/backend.json; nullopt when it is missing or unreadable.
std::optional<Endpoint> read_endpoint(const QString& home);

struct Reply {
  int status = 0;  // 0: no HTTP answer (connection refused, reset, ...)
  QByteArray body;
  bool ok() const { return status >= 200 && status < 300; }
};

// The desktop's link to one backend. Locally (the default) it finds the
// backend of one AVA_HOME through backend.json, checks that /api/health
// names the same process and machine, starts it (`ava backend start`,
// detached) when none runs. On a remote machine (use_remote) it follows
// that machine's RemoteLink: the tunnel's local port, signed in with the
// link's login code (a session cookie instead of the token). Either way it
// goes back to connecting whenever a request or stream loses it. Every
// (re)connection emits connected(); owners then reopen their streams from
// their cursors. A machine switch drops the answers still on their way
// from the machine before.
class Connection : public QObject {
  Q_OBJECT
  Q_PROPERTY(QString state READ state NOTIFY stateChanged)
  Q_PROPERTY(QString message READ message NOTIFY stateChanged)
  Q_PROPERTY(QString machineId READ machineId NOTIFY stateChanged)
  Q_PROPERTY(QString version READ version NOTIFY stateChanged)
  Q_PROPERTY(qint64 pid READ pid NOTIFY stateChanged)
  Q_PROPERTY(int epoch READ epoch NOTIFY stateChanged)
  // "local", or the remote machine's name.
  Q_PROPERTY(QString machine READ machine NOTIFY stateChanged)

 public:
  struct Options {
    QString home;        // AVA_HOME
    QString ava_binary;  // for `ava backend start`
    bool autostart = true;
  };
  explicit Connection(Options options, QObject* parent = nullptr);

  void start();
  // A request or stream failed at the transport level: reconnect.
  void lost();
  // From now on, the backend behind `link` (owned by the caller, alive
  // while in use); nullptr: the local backend again.
  void use_remote(RemoteLink* link);

  // Requests with the bearer token; `done` is called on this thread.
  using Done = std::function<void(const Reply&)>;
  void get(const QString& path, Done done);
  void send(const QByteArray& verb, const QString& path, const QByteArray& json_body, Done done);
  QNetworkRequest request_for(const QString& path_and_query) const;
  QNetworkAccessManager* network() { return &network_; }

  // connecting, starting, connected, failed; remotely also reconnecting and
  // hostkey (the machine's host key waits for the person).
  QString state() const { return state_; }
  QString machine() const { return link_ != nullptr ? link_->name() : QStringLiteral("local"); }
  QString message() const { return message_; }
  QString machineId() const { return machine_id_; }
  QString version() const { return endpoint_.version; }
  qint64 pid() const { return endpoint_.pid; }
  int epoch() const { return epoch_; }
  const QString& home() const { return options_.home; }

 signals:
  void stateChanged();
  void connected();

 private:
  void attempt();
  void on_health(const Endpoint& endpoint, const Reply& reply);
  void start_backend();
  void set_state(const QString& state, const QString& message);
  void retry_later(int ms);
  void attempt_remote();
  void log_in_remote();
  void check_health(const Endpoint& endpoint);

  Options options_;
  QNetworkAccessManager network_;
  QTimer retry_;
  Endpoint endpoint_;
  QString machine_id_;  // the machine this desktop first connected to
  QString state_ = QStringLiteral("connecting");
  QString message_;
  int epoch_ = 0;
  int attempts_ = 0;
  bool starting_ = false;
  qint64 started_ms_ = 0;  // when `ava backend start` was last run
  QPointer<RemoteLink> link_;
  QMetaObject::Connection link_changed_;
  QMetaObject::Connection link_ready_;
  qint64 unauthorized_since_ms_ = 0;  // signed out, waiting for a new code
  int generation_ = 0;                // one per machine switch: answers of an older one are dropped
};

// One SSE stream (GET with the bearer token): the body is fed to the core's
// incremental parser as it arrives. ended() fires once, when the server or
// the network closes it; close() ends it without the signal.
class SseStream : public QObject {
  Q_OBJECT

 public:
  explicit SseStream(QObject* parent = nullptr) : QObject(parent) {}
  ~SseStream() override;
  void open(QNetworkAccessManager* network, QNetworkRequest request);
  void close();
  bool is_open() const { return reply_ != nullptr; }

 signals:
  void events(const std::vector<ava::transport::SseEvent>& batch);
  void ended(int status);

 private:
  void on_ready();
  void on_finished();

  QPointer<QNetworkReply> reply_;
  std::unique_ptr<transport::SseParser> parser_;
};

}  // namespace ava::desktop
