// Qt Quick Test runner for the workbench's QML components (tests/desktop/qml).
#include <QtQuickTest>

QUICK_TEST_MAIN(desktop_qml)
