#include "ava/desktop/pdf_renderer.hpp"

#include <QJsonDocument>

namespace ava::desktop {

PdfRenderer::PdfRenderer(QString helper, QObject* parent)
    : QObject(parent), helper_(std::move(helper)) {
  process_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  connect(&process_, &QProcess::readyReadStandardOutput, this, &PdfRenderer::on_output);
  connect(&process_, &QProcess::finished, this, &PdfRenderer::on_stopped);
  connect(&process_, &QProcess::started, this, &PdfRenderer::send_next);
  connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;
    // Every waiting page fails with the reason; a later request tries again.
    const QString reason =
        QStringLiteral("the PDF helper did not start: ") + process_.errorString();
    while (!queue_.empty()) {
      auto done = std::move(queue_.front().done);
      queue_.pop_front();
      done(Page{.ok = false, .error = reason});
    }
  });
  deadline_.setSingleShot(true);
  connect(&deadline_, &QTimer::timeout, this, [this] {
    // A page that takes this long is not coming: the helper goes, the
    // request fails, the next one starts a fresh helper.
    process_.kill();
  });
}

PdfRenderer::~PdfRenderer() {
  disconnect(&process_, nullptr, this, nullptr);
  if (process_.state() != QProcess::NotRunning) {
    process_.closeWriteChannel();
    if (!process_.waitForFinished(1000)) process_.kill();
    process_.waitForFinished(1000);
  }
}

void PdfRenderer::render(const QString& pdf, int page, int width, const QString& png, Done done) {
  Request request{.id = next_id_++, .body = {}, .done = std::move(done)};
  request.body = QJsonObject{
      {"id", request.id}, {"file", pdf}, {"page", page}, {"width", width}, {"out", png}};
  queue_.push_back(std::move(request));
  send_next();
}

void PdfRenderer::send_next() {
  if (busy_ || queue_.empty()) return;
  if (process_.state() == QProcess::Starting) return;  // started() sends it
  if (process_.state() == QProcess::NotRunning) {
    buffer_.clear();
    ++starts_;
    process_.start(helper_, {});  // without waiting: the window's thread never blocks
    return;
  }
  busy_ = true;
  process_.write(QJsonDocument(queue_.front().body).toJson(QJsonDocument::Compact) + '\n');
  deadline_.start(timeout_ms);
}

void PdfRenderer::on_output() {
  buffer_ += process_.readAllStandardOutput();
  for (;;) {
    const auto end = buffer_.indexOf('\n');
    if (end < 0) break;
    const QByteArray line = buffer_.left(end);
    buffer_.remove(0, end + 1);
    if (!busy_ || queue_.empty()) continue;
    const auto answer = QJsonDocument::fromJson(line).object();
    if (answer.value("id").toInt() != queue_.front().id) continue;  // not this request's
    deadline_.stop();
    Page page{.ok = answer.value("ok").toBool(),
              .error = answer.value("error").toString(),
              .pages = answer.value("pages").toInt(),
              .image = queue_.front().body.value("out").toString(),
              .width = answer.value("width").toInt(),
              .height = answer.value("height").toInt()};
    auto done = std::move(queue_.front().done);
    queue_.pop_front();
    busy_ = false;
    done(page);
    send_next();
  }
}

void PdfRenderer::on_stopped() {
  deadline_.stop();
  if (busy_) {
    fail_current(QStringLiteral("the PDF helper stopped while drawing this page"));
  } else {
    send_next();
  }
}

void PdfRenderer::fail_current(const QString& error) {
  busy_ = false;
  if (queue_.empty()) return;
  auto done = std::move(queue_.front().done);
  queue_.pop_front();
  done(Page{.ok = false, .error = error});
  // The rest go to a fresh helper.
  QTimer::singleShot(0, this, [this] { send_next(); });
}

}  // namespace ava::desktop
