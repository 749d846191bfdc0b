#pragma once

#include <csignal>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <filesystem>
#include <fstream>
#include <functional>

#include "support/temp_dir.hpp"

namespace ava::test {

// The event loop these tests turn by hand (one per test process).
inline QCoreApplication& qt_app() {
  static int argc = 1;
  static char name[] = "ava_desktop_tests";
  static char* argv[] = {name, nullptr};
  static QCoreApplication app(argc, argv);
  return app;
}

// Runs the event loop until `done` or a generous limit; returns `done()`.
// The limit only bounds a failing test, it measures nothing.
inline bool spin_until(const std::function<bool()>& done, int limit_ms = 60000) {
  qt_app();
  QElapsedTimer timer;
  timer.start();
  while (!done()) {
    if (timer.elapsed() > limit_ms) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  }
  return true;
}

inline bool process_alive(qint64 pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0; }

// A private AVA_HOME and project folder, and the loopback fake provider in
// echo mode (tests/support/fake_echo.hpp), configured through the process
// environment that `ava backend start` passes on to ava-backend.
class BackendHome {
 public:
  BackendHome() {
    qt_app();
    home_ = dir_.path() / "home";
    project_ = dir_.path() / "project";
    std::filesystem::create_directories(home_);
    std::filesystem::create_directories(project_);
    // Not a permissions test: its tools run as a user who chose auto would.
    std::ofstream(home_ / "settings.json") << R"({"permissions": {"defaultMode": "auto"}})";
    fake_.start(
        QStringLiteral(AVA_FAKE_PROVIDER_BIN),
        {QStringLiteral("--format"), QStringLiteral("anthropic"), QStringLiteral("--echo")});
    fake_.waitForReadyRead(10000);
    url_ = QString::fromUtf8(fake_.readLine()).trimmed();
    for (const char* name : {"AVA_PROVIDER", "AVA_MODEL", "AVA_BASE_URL", "AVA_API_KEY",
                             "OPENAI_API_KEY", "AVA_BACKEND_BIN"})
      qunsetenv(name);
    qputenv("AVA_HOME", QByteArray::fromStdString(home_.string()));
    qputenv("ANTHROPIC_API_KEY", "test-key");
    qputenv("ANTHROPIC_BASE_URL", url_.toUtf8());
    qputenv("no_proxy", "*");
    // A Codex login of the user's stays out of the tests.
    qputenv("CODEX_HOME", QByteArray::fromStdString((dir_.path() / "codex").string()));
  }
  ~BackendHome() {
    // The backend outlives its clients by design; the test stops it.
    for (const auto pid : started_) {
      if (!process_alive(pid)) continue;
      ::kill(static_cast<pid_t>(pid), SIGTERM);
      spin_until([pid] { return !process_alive(pid); }, 30000);
    }
    fake_.terminate();
    fake_.waitForFinished(10000);
  }
  BackendHome(const BackendHome&) = delete;
  BackendHome& operator=(const BackendHome&) = delete;

  QString home() const { return QString::fromStdString(home_.string()); }
  QString project() const { return QString::fromStdString(project_.string()); }
  const QString& provider_url() const { return url_; }
  // Remembers a backend pid to stop at the end.
  void track(qint64 pid) { started_.push_back(pid); }

 private:
  TempDir dir_;
  std::filesystem::path home_;
  std::filesystem::path project_;
  QProcess fake_;
  QString url_;
  std::vector<qint64> started_;
};

}  // namespace ava::test
