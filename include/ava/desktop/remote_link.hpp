#pragma once

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>

namespace ava::desktop {

// One remote machine as the desktop reaches it: a supervised
// `ava machine connect NAME --json` child, which does the SSH work (host
// key, sign-in, install, the backend, the tunnel, its reconnects) and
// reports each step as a JSON line. The desktop then talks to the tunnel's
// local port like to a local backend, signed in with the login code the
// child printed. The child stops with the desktop (or remove/stop).
class RemoteLink : public QObject {
  Q_OBJECT

 public:
  // What the child printed when the tunnel came up, or after the machine's
  // backend restarted.
  struct Tunnel {
    int local_port = 0;
    QString login_code;  // one-time: traded for a session cookie
    qint64 pid = 0;      // the machine's backend
    QString version;
    QString machine_id;
    bool update_pending = false;
  };

  RemoteLink(QString name, QString ava_binary, QString home, QObject* parent = nullptr);
  ~RemoteLink() override;

  // Starts the child unless it runs; `accept_host_key` (SHA256:...) accepts
  // exactly that unknown host key, as the person confirmed it.
  void start(const QString& accept_host_key = {});
  void stop();

  const QString& name() const { return name_; }
  // idle, connecting, connected, reconnecting, hostkey (an unknown key
  // waits for the person), passphrase (a key file's passphrase does),
  // failed (a refusal that retrying will not fix).
  const QString& state() const { return state_; }
  const QString& message() const { return message_; }
  // The key file whose passphrase the child waits for (state "passphrase").
  const QString& passphrase_key() const { return passphrase_key_; }
  // The person's answer: written to the child, never kept here; empty
  // skips the key.
  void answer_passphrase(const QString& passphrase);
  const QString& host_key_type() const { return host_key_type_; }
  const QString& host_key_fingerprint() const { return host_key_fingerprint_; }
  const Tunnel& tunnel() const { return tunnel_; }
  // The session cookie the login code was traded for ("ava_PORT=..."),
  // kept here so that switching machines keeps each one signed in.
  const QByteArray& cookie() const { return cookie_; }
  void set_cookie(const QByteArray& cookie) { cookie_ = cookie; }
  // The login code was used (a cookie was had for it).
  void spend_code() { tunnel_.login_code.clear(); }

  // Lines longer than this from the child end it (it prints short ones).
  static constexpr qsizetype max_line = 64 * 1024;

 signals:
  void changed();
  // A fresh login code: the tunnel is up, or the backend behind it changed.
  void ready();

 private:
  void on_output();
  void on_line(const QByteArray& line);
  void on_finished(int code);
  void set_state(const QString& state, const QString& message);

  QString name_;
  QString ava_binary_;
  QString home_;
  QProcess* process_ = nullptr;
  QByteArray buffer_;
  QByteArray errors_;  // the child's stderr, the last lines kept
  QTimer retry_;
  int backoff_ms_ = 1000;
  bool stopping_ = false;
  QString state_ = QStringLiteral("idle");
  QString message_;
  QString passphrase_key_;
  QString host_key_type_;
  QString host_key_fingerprint_;
  QString last_failure_code_;
  Tunnel tunnel_;
  QByteArray cookie_;
};

}  // namespace ava::desktop
