#pragma once

#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTimer>

#include <deque>
#include <functional>

namespace ava::desktop {

// The desktop's side of ava-pdf-render (src/desktop/pdf_render_main.cpp):
// pages are drawn in that process, never on the window's thread. Requests
// queue and go one at a time; the helper is started on the first one and
// again after it dies or hangs (a request that takes longer than `timeout`
// kills it), so one bad PDF costs one failed page.
class PdfRenderer : public QObject {
  Q_OBJECT

 public:
  struct Page {
    bool ok = false;
    QString error;
    int pages = 0;
    QString image;  // the PNG written
    int width = 0;
    int height = 0;
  };
  using Done = std::function<void(const Page&)>;

  explicit PdfRenderer(QString helper, QObject* parent = nullptr);
  ~PdfRenderer() override;

  // Draws `page` (from 0) of `pdf`, `width` pixels wide, into `png`.
  void render(const QString& pdf, int page, int width, const QString& png, Done done);
  // How often the helper was (re)started: 1 after the first request.
  int starts() const { return starts_; }
  // The helper's pid, 0 while none runs (tests kill it to see it come back).
  qint64 pid() const { return process_.processId(); }
  static constexpr int timeout_ms = 30000;

 private:
  struct Request {
    int id = 0;
    QJsonObject body;
    Done done;
  };
  void send_next();
  void on_output();
  void on_stopped();
  void fail_current(const QString& error);

  QString helper_;
  QProcess process_;
  QTimer deadline_;
  QByteArray buffer_;
  std::deque<Request> queue_;
  bool busy_ = false;  // the front of queue_ is with the helper
  int next_id_ = 1;
  int starts_ = 0;
};

}  // namespace ava::desktop
