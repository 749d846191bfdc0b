#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

class QQuickWindow;

namespace ava::desktop {

class Workbench;

// Scripted runs of the real window, for the end-to-end test and the
// performance figures: what a user would do, through the same QML paths
// (the prompt goes through the composer), then a screenshot or a report.
struct AutomationOptions {
  QString project;     // register this folder and start a conversation in it
  QString prompt;      // typed into the composer and sent
  QString screenshot;  // saved once the answer and a finished tool card are shown
  // A call waiting for approval is answered "allow once" through the card
  // (its allowOnce(), what the button and the Y key call); this screenshot
  // is saved first.
  QString approval_screenshot;
  // Then the Analytics page is opened and saved here once it shows turns.
  QString analytics_screenshot;
  // Then the file panel (automation_files.cpp): the project's tree, its
  // doc.pdf drawn while an answer streams (frame gaps measured), the PDF
  // helper killed and back, a file written outside appearing, quick open.
  QString files_screenshot;
  // First add this machine through the Add-a-machine dialog (name and
  // [user@]host[:port]) and select it; its unknown host key is accepted in
  // the dialog only if the dialog shows exactly `host_key` (SHA256:...).
  QString machine_name;
  QString machine_destination;
  QString host_key;
  QString passphrase;          // typed into the passphrase dialog when it asks
  QString open_conversation;   // select this conversation
  bool report_loaded = false;  // print RSS and rows once its history is loaded, then quit
  int timeout_ms = 60000;
  bool active() const {
    return !project.isEmpty() || !open_conversation.isEmpty() || report_loaded ||
           !machine_name.isEmpty();
  }
};

class Automation : public QObject {
  Q_OBJECT

 public:
  Automation(AutomationOptions options, Workbench* workbench, QQuickWindow* window,
             QObject* parent = nullptr);
  void start();

 private:
  void step();
  void finish(int code, const QString& message);
  bool answer_approval();
  bool add_machine();
  void answer_passphrase();
  // The file panel's stages; true while they have work to do.
  bool check_files();
  void begin_frame_gaps();

  AutomationOptions options_;
  Workbench* workbench_;
  QQuickWindow* window_;
  QTimer poll_;
  QElapsedTimer elapsed_;
  QString stage_ = QStringLiteral("connecting");
  int settle_ticks_ = 0;
  int analytics_ticks_ = 0;
  QString report_;  // what the run did, printed when it finishes
  int approval_ticks_ = 0;
  int approvals_answered_ = 0;
  bool passphrase_given_ = false;
  // Frame gaps while a PDF page is drawn (automation_files.cpp).
  QElapsedTimer frame_clock_;
  qint64 last_frame_ms_ = -1;
  qint64 max_frame_gap_ms_ = 0;
  int frames_ = 0;
  bool measuring_frames_ = false;
  qint64 files_started_ms_ = 0;
  int helper_pid_ = 0;
};

// Resident set size of this process in KiB (/proc/self/status VmRSS).
long resident_kib();

}  // namespace ava::desktop
