#include "desktop/automation.hpp"

#include <QCoreApplication>
#include <QFile>
#include <QImage>
#include <QQuickItem>
#include <QQuickWindow>
#include <cstdio>

#include "ava/desktop/workbench.hpp"

namespace ava::desktop {

long resident_kib() {
  QFile status(QStringLiteral("/proc/self/status"));
  if (!status.open(QIODevice::ReadOnly)) return -1;
  for (const auto& line : status.readAll().split('\n')) {
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').value(0).toLong();
  }
  return -1;
}

Automation::Automation(AutomationOptions options, Workbench* workbench, QQuickWindow* window,
                       QObject* parent)
    : QObject(parent), options_(std::move(options)), workbench_(workbench), window_(window) {
  poll_.setInterval(100);
  connect(&poll_, &QTimer::timeout, this, &Automation::step);
}

void Automation::start() {
  elapsed_.start();
  if (!options_.machine_name.isEmpty()) stage_ = QStringLiteral("machine");
  poll_.start();
}

// The machine through its dialog, then its host key through the host-key
// dialog, as a person would: the fingerprint shown is compared with the one
// expected first. True while this still has work to do.
bool Automation::add_machine() {
  if (stage_ == QStringLiteral("machine")) {
    auto* dialog = window_->findChild<QObject*>(QStringLiteral("addMachineDialog"));
    if (dialog == nullptr) return true;
    QMetaObject::invokeMethod(dialog, "submit", Q_ARG(QVariant, options_.machine_name),
                              Q_ARG(QVariant, options_.machine_destination),
                              Q_ARG(QVariant, QString()));
    report_ = QStringLiteral("machine %1 added").arg(options_.machine_name);
    stage_ = QStringLiteral("hostkey");
    return true;
  }
  if (stage_ != QStringLiteral("hostkey")) return false;
  if (workbench_->connection()->state() == QStringLiteral("connected") &&
      workbench_->machineName() == options_.machine_name) {
    stage_ = QStringLiteral("connecting");  // the key was known already
    return false;
  }
  auto* dialog = window_->findChild<QObject*>(QStringLiteral("hostKeyDialog"));
  if (dialog == nullptr || !dialog->property("opened").toBool()) return true;
  const QString shown = dialog->property("fingerprint").toString();
  if (shown != options_.host_key) {
    finish(5, QStringLiteral("the host key dialog shows %1, not %2").arg(shown, options_.host_key));
    return true;
  }
  QMetaObject::invokeMethod(dialog, "accept");
  report_ += QStringLiteral(", host key %1 accepted").arg(shown);
  stage_ = QStringLiteral("connecting");
  return true;
}

void Automation::finish(int code, const QString& message) {
  poll_.stop();
  std::fprintf(code == 0 ? stdout : stderr, "ava-desktop: %s\n", qPrintable(message));
  std::fflush(nullptr);
  QCoreApplication::exit(code);
}

// A call waits for a person: once the card is laid out, a screenshot, then
// the card's "allow once" answer (what its button and the Y key call; the
// QML test clicks and types them). True while waiting.
bool Automation::answer_approval() {
  if (workbench_->conversation()->waitingApprovals() == 0) {
    approval_ticks_ = 0;
    return false;
  }
  auto* card = window_->findChild<QQuickItem*>(QStringLiteral("approvalCard"));
  if (card == nullptr || card->height() < 1 || ++approval_ticks_ < 5) return true;
  if (approval_ticks_ > 5) return true;  // answered; the decision is on its way
  if (!options_.approval_screenshot.isEmpty()) {
    const QImage image = window_->grabWindow();
    if (image.isNull() || !image.save(options_.approval_screenshot)) {
      finish(4, QStringLiteral("cannot save the screenshot to ") + options_.approval_screenshot);
      return true;
    }
  }
  QMetaObject::invokeMethod(card, "allowOnce");
  ++approvals_answered_;
  return true;
}

// The key's passphrase through its dialog, once, whatever the stage.
void Automation::answer_passphrase() {
  if (options_.passphrase.isEmpty() || passphrase_given_) return;
  auto* dialog = window_->findChild<QObject*>(QStringLiteral("passphraseDialog"));
  if (dialog == nullptr || !dialog->property("opened").toBool()) return;
  QMetaObject::invokeMethod(dialog, "answer", Q_ARG(QVariant, options_.passphrase));
  passphrase_given_ = true;
  report_ += QStringLiteral(", passphrase given");
}

// A small state machine driven by the poll timer, so that each stage waits
// for what the previous one caused (the server's answer, the view's rows).
void Automation::step() {
  if (elapsed_.elapsed() > options_.timeout_ms) {
    return finish(3, QStringLiteral("automation timed out at stage '%1' (connection: %2 %3)")
                         .arg(stage_, workbench_->connection()->state(),
                              workbench_->connection()->message()));
  }
  auto* conversation = workbench_->conversation();
  answer_passphrase();
  if (add_machine()) return;
  if (check_files()) return;
  if (stage_ == QStringLiteral("connecting")) {
    if (workbench_->connection()->state() != QStringLiteral("connected")) return;
    if (!options_.machine_name.isEmpty() && workbench_->machineName() != options_.machine_name)
      return;
    if (!options_.open_conversation.isEmpty()) {
      workbench_->selectConversation(options_.open_conversation);
      stage_ = QStringLiteral("loading");
    } else {
      workbench_->addProject(options_.project);
      stage_ = QStringLiteral("project");
    }
  } else if (stage_ == QStringLiteral("project")) {
    if (workbench_->projectId().isEmpty()) return;
    workbench_->newConversation(QStringLiteral("Desktop end-to-end"));
    stage_ = QStringLiteral("conversation");
  } else if (stage_ == QStringLiteral("conversation")) {
    if (workbench_->conversationId().isEmpty() || conversation->lastSeq() == 0) return;
    // Through the composer, as typed: the QML sends it with the chosen kind.
    QMetaObject::invokeMethod(window_, "automationSend", Q_ARG(QVariant, options_.prompt));
    stage_ = QStringLiteral("answer");
  } else if (stage_ == QStringLiteral("answer")) {
    if (answer_approval()) return;
    bool tool_done = false;
    bool answered = false;
    for (const auto& item : conversation->items()) {
      if (item.kind == ViewItem::Kind::tool && item.status == QStringLiteral("ok"))
        tool_done = true;
      if (item.kind == ViewItem::Kind::assistant && tool_done) answered = true;
    }
    if (!answered || conversation->turnOpen()) return;
    stage_ = QStringLiteral("settle");
  } else if (stage_ == QStringLiteral("loading")) {
    if (!workbench_->historyLoaded()) return;
    stage_ = QStringLiteral("settle");
  } else if (stage_ == QStringLiteral("analytics")) {
    // The page asks GET /api/analytics when shown; the turn just run counts.
    const auto summary = workbench_->analytics();
    if (workbench_->analyticsLoading() || summary.value(QStringLiteral("turns")).toInt() < 1)
      return;
    if (++analytics_ticks_ < 8) return;
    const QImage image = window_->grabWindow();
    if (image.isNull() || !image.save(options_.analytics_screenshot))
      return finish(
          4, QStringLiteral("cannot save the screenshot to ") + options_.analytics_screenshot);
    finish(0, report_ + QStringLiteral("; analytics turns=%1 toolCalls=%2 screenshot=%3")
                            .arg(summary.value(QStringLiteral("turns")).toInt())
                            .arg(summary.value(QStringLiteral("toolCalls")).toInt())
                            .arg(options_.analytics_screenshot));
  } else if (stage_ == QStringLiteral("settle")) {
    // A few frames for the view to lay out the last rows.
    if (++settle_ticks_ < 8) return;
    if (options_.report_loaded) {
      return finish(0, QStringLiteral("loaded rows=%1 lastSeq=%2 rss-kib=%3 after %4 ms")
                           .arg(conversation->rowCount())
                           .arg(conversation->lastSeq())
                           .arg(resident_kib())
                           .arg(elapsed_.elapsed()));
    }
    if (!options_.screenshot.isEmpty()) {
      const QImage image = window_->grabWindow();
      if (image.isNull() || !image.save(options_.screenshot))
        return finish(4, QStringLiteral("cannot save the screenshot to ") + options_.screenshot);
    }
    report_ = QStringLiteral("%1%2; rows=%3 lastSeq=%4 approvals=%5 screenshot=%6")
                  .arg(report_.isEmpty() ? QString() : report_ + QStringLiteral("; "))
                  .arg(options_.open_conversation.isEmpty() ? QStringLiteral("answered")
                                                            : QStringLiteral("opened"))
                  .arg(conversation->rowCount())
                  .arg(conversation->lastSeq())
                  .arg(approvals_answered_)
                  .arg(options_.screenshot);
    if (!options_.files_screenshot.isEmpty()) {
      stage_ = QStringLiteral("files");
      return;
    }
    if (!options_.analytics_screenshot.isEmpty()) {
      window_->setProperty("page", 3);  // Main.qml's AnalyticsPage
      stage_ = QStringLiteral("analytics");
      return;
    }
    finish(0, report_);
  }
}

}  // namespace ava::desktop
