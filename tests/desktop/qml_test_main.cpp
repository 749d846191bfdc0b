// Qt Quick Test runner for the workbench's QML components (tests/desktop/qml),
// with the C++ types the components use (Ava.Markdown) registered as
// ava-desktop registers them.
#include <QObject>
#include <QQmlEngine>
#include <QtQuickTest>

#include "ava/desktop/markdown.hpp"

class Setup : public QObject {
  Q_OBJECT

 public slots:
  void applicationAvailable() {
    qmlRegisterSingletonType<ava::desktop::Markdown>(
        "Ava", 1, 0, "Markdown",
        [](QQmlEngine*, QJSEngine*) { return new ava::desktop::Markdown; });
  }
};

QUICK_TEST_MAIN_WITH_SETUP(desktop_qml, Setup)

#include "qml_test_main.moc"
