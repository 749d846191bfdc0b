// ava-desktop: the Qt Quick workbench, a client of the local ava-backend.
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLockFile>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickStyle>
#include <QQuickWindow>
#include <cstdio>

#include "ava/base/home.hpp"
#include "ava/base/version.hpp"
#include "ava/desktop/markdown.hpp"
#include "ava/desktop/workbench.hpp"
#include "desktop/automation.hpp"

namespace {

using namespace ava::desktop;

QString default_ava_binary() {
  const QString beside =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ava"));
  if (const auto env = qEnvironmentVariable("AVA_BIN"); !env.isEmpty()) return env;
  return QFileInfo::exists(beside) ? beside : QStringLiteral("ava");
}

}  // namespace

int main(int argc, char** argv) {
  QElapsedTimer since_start;
  since_start.start();
  QGuiApplication app(argc, argv);
  QGuiApplication::setApplicationName(QStringLiteral("ava-desktop"));
  QGuiApplication::setApplicationVersion(QString::fromStdString(std::string(ava::base::version())));

  QCommandLineParser cli;
  cli.setApplicationDescription(
      QStringLiteral("Ava's desktop workbench (a client of ava-backend)"));
  cli.addHelpOption();
  cli.addVersionOption();
  QCommandLineOption no_autostart(QStringLiteral("no-autostart"),
                                  QStringLiteral("Wait for a backend instead of starting one"));
  QCommandLineOption ava_bin(QStringLiteral("ava"), QStringLiteral("The ava CLI (backend start)"),
                             QStringLiteral("path"), default_ava_binary());
  QCommandLineOption timing(QStringLiteral("print-first-frame"),
                            QStringLiteral("Print the time to the first painted frame"));
  QCommandLineOption exit_first(QStringLiteral("exit-after-first-frame"),
                                QStringLiteral("Quit once the first frame is painted"));
  QCommandLineOption project(
      QStringLiteral("e2e-project"),
      QStringLiteral("Automation: register this folder, start a conversation"),
      QStringLiteral("dir"));
  QCommandLineOption prompt(QStringLiteral("e2e-prompt"),
                            QStringLiteral("Automation: send this through the composer"),
                            QStringLiteral("text"));
  QCommandLineOption screenshot(QStringLiteral("e2e-screenshot"),
                                QStringLiteral("Automation: save the window once answered"),
                                QStringLiteral("png"));
  QCommandLineOption approval_shot(
      QStringLiteral("e2e-approval-screenshot"),
      QStringLiteral("Automation: save the window when a call waits for approval, then allow it"),
      QStringLiteral("png"));
  QCommandLineOption analytics_shot(
      QStringLiteral("e2e-analytics-screenshot"),
      QStringLiteral("Automation: then open Analytics and save the window once it shows turns"),
      QStringLiteral("png"));
  QCommandLineOption files_shot(
      QStringLiteral("e2e-files-screenshot"),
      QStringLiteral("Automation: then open the file panel, preview the project's doc.pdf while "
                     "an answer streams, and save the window"),
      QStringLiteral("png"));
  QCommandLineOption machine(
      QStringLiteral("e2e-machine"),
      QStringLiteral("Automation: first add this machine (NAME=[user@]host[:port]) and select it"),
      QStringLiteral("name=destination"));
  QCommandLineOption host_key(
      QStringLiteral("e2e-host-key"),
      QStringLiteral("Automation: accept the machine's host key if the dialog shows this one"),
      QStringLiteral("SHA256:..."));
  QCommandLineOption passphrase(
      QStringLiteral("e2e-passphrase"),
      QStringLiteral("Automation: type this into the key passphrase dialog when it asks"),
      QStringLiteral("text"));
  QCommandLineOption open(QStringLiteral("open-conversation"),
                          QStringLiteral("Select this conversation at start"),
                          QStringLiteral("id"));
  QCommandLineOption report(
      QStringLiteral("report-loaded"),
      QStringLiteral("Print rows and RSS once the conversation is loaded, then quit"));
  QCommandLineOption theme(QStringLiteral("theme"),
                           QStringLiteral("system, light or dark (instead of the saved choice)"),
                           QStringLiteral("mode"));
  cli.addOptions({no_autostart, ava_bin, timing, exit_first, project, prompt, screenshot,
                  approval_shot, analytics_shot, files_shot, machine, host_key, passphrase, open,
                  report, theme});
  cli.process(app);

  auto home = ava::base::Home::resolve();
  if (!home) {
    std::fprintf(stderr, "ava-desktop: %s\n", home.error().message.c_str());
    return 1;
  }
  const QString home_path = QString::fromStdString(home->root().string());
  QDir().mkpath(home_path);
  // One desktop per home: a second one would race the first for the same
  // selection state and window settings.
  QLockFile lock(QDir(home_path).filePath(QStringLiteral("desktop.lock")));
  if (!lock.tryLock(0)) {
    qint64 pid = 0;
    QString host;
    QString name;
    lock.getLockInfo(&pid, &host, &name);
    std::fprintf(stderr, "ava-desktop: another desktop (pid %lld) already runs for %s\n",
                 static_cast<long long>(pid), qPrintable(home_path));
    return 1;
  }

  QQuickStyle::setStyle(QStringLiteral("Basic"));
  Workbench workbench(
      {.home = home_path, .ava_binary = cli.value(ava_bin), .autostart = !cli.isSet(no_autostart)});
  qmlRegisterUncreatableType<Workbench>("Ava", 1, 0, "Workbench",
                                        QStringLiteral("context property"));
  qmlRegisterUncreatableType<Connection>("Ava", 1, 0, "Connection",
                                         QStringLiteral("from workbench"));
  qmlRegisterUncreatableType<ConversationModel>("Ava", 1, 0, "ConversationModel",
                                                QStringLiteral("from workbench"));
  qmlRegisterUncreatableType<RowsModel>("Ava", 1, 0, "RowsModel", QStringLiteral("from workbench"));
  qmlRegisterUncreatableType<FileBrowser>("Ava", 1, 0, "FileBrowser",
                                          QStringLiteral("from workbench"));
  // Answers as rich text without raw HTML or images; links opened only if http(s) or mailto.
  qmlRegisterSingletonType<Markdown>("Ava", 1, 0, "Markdown",
                                     [](QQmlEngine*, QJSEngine*) { return new Markdown; });

  QQmlApplicationEngine engine;
  engine.rootContext()->setContextProperty(QStringLiteral("workbench"), &workbench);
  engine.rootContext()->setContextProperty(QStringLiteral("themeOverride"), cli.value(theme));
  engine.load(QUrl(QStringLiteral("qrc:/qml/Main.qml")));
  if (engine.rootObjects().isEmpty()) return 1;
  auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
  if (window == nullptr) return 1;

  const bool print_timing = cli.isSet(timing);
  const bool quit_on_frame = cli.isSet(exit_first);
  QObject::connect(
      window, &QQuickWindow::frameSwapped, &app,
      [&, done = false]() mutable {
        if (done) return;
        done = true;
        if (print_timing || quit_on_frame) {
          std::printf("ava-desktop: first frame after %lld ms (rss %ld KiB)\n",
                      static_cast<long long>(since_start.elapsed()), resident_kib());
          std::fflush(stdout);
        }
        if (quit_on_frame) QCoreApplication::quit();
      },
      Qt::QueuedConnection);

  workbench.start();
  AutomationOptions automation_options{.project = cli.value(project),
                                       .prompt = cli.value(prompt),
                                       .screenshot = cli.value(screenshot),
                                       .approval_screenshot = cli.value(approval_shot),
                                       .analytics_screenshot = cli.value(analytics_shot),
                                       .files_screenshot = cli.value(files_shot),
                                       .machine_name = cli.value(machine).section('=', 0, 0),
                                       .machine_destination = cli.value(machine).section('=', 1),
                                       .host_key = cli.value(host_key),
                                       .passphrase = cli.value(passphrase),
                                       .open_conversation = cli.value(open),
                                       .report_loaded = cli.isSet(report)};
  Automation automation(automation_options, &workbench, window);
  if (automation_options.active()) automation.start();
  // Closing the window ends this process only: the backend keeps its work.
  return QGuiApplication::exec();
}
