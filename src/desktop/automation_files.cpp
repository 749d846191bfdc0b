// The end-to-end run's file panel stages (automation.hpp): what a person
// does with the panel, through the same FileBrowser the QML uses, with the
// window's frames timed while a PDF page is drawn and an answer streams.
#include <csignal>

#include <QFile>
#include <QImage>
#include <QQuickWindow>

#include "ava/desktop/workbench.hpp"
#include "desktop/automation.hpp"

namespace ava::desktop {
namespace {

bool has_row(FileBrowser& files, const QString& path) { return files.rows()->indexOf(path) >= 0; }

// An answer that streams for a few seconds, word by word (the fake
// provider's slow echo), while the page is drawn.
QString streaming_prompt() {
  QString words;
  for (int i = 0; i < 80; ++i) words += QStringLiteral(" word%1").arg(i);
  return QStringLiteral("slow: 25:") + words;
}

}  // namespace

void Automation::begin_frame_gaps() {
  if (!frame_clock_.isValid()) {
    frame_clock_.start();
    connect(window_, &QQuickWindow::frameSwapped, this, [this] {
      if (!measuring_frames_) return;
      const qint64 now = frame_clock_.elapsed();
      if (last_frame_ms_ >= 0)
        max_frame_gap_ms_ = std::max(max_frame_gap_ms_, now - last_frame_ms_);
      last_frame_ms_ = now;
      ++frames_;
    });
  }
  last_frame_ms_ = -1;
  max_frame_gap_ms_ = 0;
  frames_ = 0;
  measuring_frames_ = true;
}

bool Automation::check_files() {
  if (!stage_.startsWith(QStringLiteral("files"))) return false;
  FileBrowser& files = *workbench_->files();
  const auto preview = files.preview();
  if (stage_ == QStringLiteral("files")) {
    window_->setProperty("filesOpen", true);  // Main.qml's panel, as the Files button does
    stage_ = QStringLiteral("files-tree");
  } else if (stage_ == QStringLiteral("files-tree")) {
    if (!files.watching() || !has_row(files, QStringLiteral("doc.pdf"))) return true;
    if (has_row(files, QStringLiteral("build"))) {
      finish(6, QStringLiteral("the file panel lists the ignored build/ folder"));
      return true;
    }
    begin_frame_gaps();
    QMetaObject::invokeMethod(window_, "automationSend", Q_ARG(QVariant, streaming_prompt()));
    files_started_ms_ = elapsed_.elapsed();
    files.open(QStringLiteral("doc.pdf"));
    stage_ = QStringLiteral("files-pdf");
  } else if (stage_ == QStringLiteral("files-pdf")) {
    if (preview.value(QStringLiteral("image")).toString().isEmpty() ||
        preview.value(QStringLiteral("page")).toInt() != 0) {
      if (!files.previewError().isEmpty()) {
        finish(6, QStringLiteral("the PDF preview failed: ") + files.previewError());
      }
      return true;
    }
    measuring_frames_ = false;
    report_ += QStringLiteral("; files pdf pages=%1 first-page-ms=%2 frames=%3 max-frame-gap-ms=%4")
                   .arg(preview.value(QStringLiteral("pages")).toInt())
                   .arg(elapsed_.elapsed() - files_started_ms_)
                   .arg(frames_)
                   .arg(max_frame_gap_ms_);
    settle_ticks_ = 0;
    stage_ = QStringLiteral("files-pdf-shown");
  } else if (stage_ == QStringLiteral("files-pdf-shown")) {
    // The page on screen: a few frames to lay out the image first.
    if (++settle_ticks_ < 6) return true;
    const QImage image = window_->grabWindow();
    if (image.isNull() || !image.save(options_.files_screenshot)) {
      finish(4, QStringLiteral("cannot save the screenshot to ") + options_.files_screenshot);
      return true;
    }
    // The helper dies; the next page starts a new one.
    helper_pid_ = static_cast<int>(files.pdf().pid());
    if (helper_pid_ > 0) ::kill(helper_pid_, SIGKILL);
    stage_ = QStringLiteral("files-pdf-dead");
  } else if (stage_ == QStringLiteral("files-pdf-dead")) {
    if (files.pdf().pid() != 0) return true;  // not reaped yet
    files.showPdfPage(1);
    stage_ = QStringLiteral("files-pdf-again");
  } else if (stage_ == QStringLiteral("files-pdf-again")) {
    if (preview.value(QStringLiteral("page")).toInt() != 1 || files.previewBusy()) {
      if (!files.previewError().isEmpty()) {
        finish(6, QStringLiteral("the PDF helper did not come back: ") + files.previewError());
      }
      return true;
    }
    report_ += QStringLiteral(" helper-starts=%1").arg(files.pdf().starts());
    files.toggle(QStringLiteral("src"));
    stage_ = QStringLiteral("files-src");
  } else if (stage_ == QStringLiteral("files-src")) {
    if (!has_row(files, QStringLiteral("src/app.ts"))) return true;
    // Written behind the panel's back, as an editor or the agent would.
    QFile fresh(options_.project + QStringLiteral("/src/fresh.ts"));
    if (!fresh.open(QIODevice::WriteOnly) || fresh.write("export const fresh = true;\n") < 0) {
      finish(6, QStringLiteral("cannot write ") + fresh.fileName());
      return true;
    }
    fresh.close();
    stage_ = QStringLiteral("files-watch");
  } else if (stage_ == QStringLiteral("files-watch")) {
    if (!has_row(files, QStringLiteral("src/fresh.ts"))) return true;
    files.search(QStringLiteral("frsh"));
    stage_ = QStringLiteral("files-search");
  } else if (stage_ == QStringLiteral("files-search")) {
    const auto matches = files.matches();
    if (matches.isEmpty()) return true;
    const QString first = matches.front().toMap().value(QStringLiteral("path")).toString();
    if (first != QStringLiteral("src/fresh.ts")) {
      finish(6, QStringLiteral("quick open offered %1 first").arg(first));
      return true;
    }
    files.open(first);
    stage_ = QStringLiteral("files-open");
  } else if (stage_ == QStringLiteral("files-open")) {
    if (!preview.value(QStringLiteral("text")).toString().contains(QStringLiteral("fresh")))
      return true;
    if (workbench_->conversation()->turnOpen()) return true;  // the streamed answer ends first
    report_ += QStringLiteral(" watch=ok quick-open=ok files-screenshot=%1")
                   .arg(options_.files_screenshot);
    if (!options_.analytics_screenshot.isEmpty()) {
      window_->setProperty("filesOpen", false);
      window_->setProperty("page", 3);
      stage_ = QStringLiteral("analytics");
      return true;
    }
    finish(0, report_);
  }
  return true;
}

}  // namespace ava::desktop
