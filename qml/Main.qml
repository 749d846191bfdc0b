import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Window

// The workbench window. State lives in the C++ `workbench`; this file lays
// it out, keeps the window's geometry in desktop.ini and binds the shortcuts.
ApplicationWindow {
    id: window
    width: workbench.setting("window/width", 1200)
    height: workbench.setting("window/height", 800)
    minimumWidth: 640
    minimumHeight: 420
    visible: true
    title: (workbench.conversationTitle !== "" ? workbench.conversationTitle + " — " : "") + "Ava"
    color: Theme.background

    property string themeMode: themeOverride !== "" ? themeOverride : workbench.setting("theme/mode", "system")
    // 0: the conversation, 1: settings, 2: automations.
    property int page: 0
    // The file panel beside the page (Ctrl+Shift+E; Ctrl+P goes to a file).
    property bool filesOpen: false
    property bool filesUsed: false  // the panel is made on first use
    onFilesOpenChanged: {
        if (filesOpen) filesUsed = true
        workbench.files.setActive(filesOpen)
    }
    function openFiles(quick) {
        window.filesOpen = true
        if (quick) filesPanel.openQuick()
    }

    SystemPalette { id: systemPalette }
    Binding { target: Theme; property: "systemWindow"; value: systemPalette.window }
    Binding { target: Theme; property: "mode"; value: window.themeMode }

    palette.window: Theme.background
    palette.windowText: Theme.text
    palette.base: Theme.raised
    palette.alternateBase: Theme.surface
    palette.text: Theme.text
    palette.button: Theme.raised
    palette.buttonText: Theme.text
    palette.highlight: Theme.accent
    palette.highlightedText: "#ffffff"
    palette.placeholderText: Theme.muted
    palette.mid: Theme.border
    palette.light: Theme.raised
    palette.dark: Theme.border

    Component.onCompleted: {
        const x = workbench.setting("window/x", -1)
        const y = workbench.setting("window/y", -1)
        if (x >= 0 && y >= 0) { window.x = x; window.y = y }
        if (workbench.setting("window/maximized", false) === true || workbench.setting("window/maximized", "false") === "true")
            window.visibility = Window.Maximized
    }
    onClosing: {
        const maximized = window.visibility === Window.Maximized
        workbench.setSetting("window/maximized", maximized)
        if (!maximized) {
            workbench.setSetting("window/x", window.x)
            workbench.setSetting("window/y", window.y)
            workbench.setSetting("window/width", window.width)
            workbench.setSetting("window/height", window.height)
        }
        workbench.setSetting("window/sidebar", sidebar.width)
    }

    // The end-to-end test types its prompt here, as a user would.
    function automationSend(text) {
        conversationView.composer.text = text
        conversationView.composer.submit("followup")
    }
    function chooseTheme(mode) {
        window.themeMode = mode
        workbench.setSetting("theme/mode", mode)
    }
    function stepConversation(delta) {
        const list = workbench.conversations
        const at = list.indexOf(workbench.conversationId) + delta
        if (at >= 0 && at < list.count) workbench.selectConversation(list.get(at).id)
    }

    Shortcut { sequence: "Ctrl+N"; onActivated: workbench.newConversation("") }
    Shortcut { sequence: "Ctrl+L"; onActivated: conversationView.composer.focusInput() }
    Shortcut { sequence: "Ctrl+."; onActivated: workbench.abort() }
    Shortcut { sequence: "Ctrl+Shift+P"; onActivated: conversationView.composer.paused ? workbench.resume() : workbench.pause() }
    Shortcut { sequence: "Ctrl+,"; onActivated: window.page = window.page === 1 ? 0 : 1 }
    Shortcut { sequence: "Ctrl+Shift+L"; onActivated: window.chooseTheme(Theme.dark ? "light" : "dark") }
    Shortcut { sequence: "Ctrl+PgDown"; onActivated: window.stepConversation(1) }
    Shortcut { sequence: "Ctrl+PgUp"; onActivated: window.stepConversation(-1) }
    Shortcut { sequence: "Ctrl+D"; onActivated: {
        const at = workbench.conversations.indexOf(workbench.conversationId)
        if (at >= 0) workbench.setPinned(workbench.conversationId, !workbench.conversations.get(at).pinned)
    } }
    Shortcut { sequence: "Ctrl+E"; onActivated: {
        const at = workbench.conversations.indexOf(workbench.conversationId)
        if (at >= 0) workbench.setArchived(workbench.conversationId, !workbench.conversations.get(at).archived)
    } }
    Shortcut { sequence: "Ctrl+P"; onActivated: window.openFiles(true) }
    Shortcut { sequence: "Ctrl+Shift+E"; onActivated: window.filesOpen = !window.filesOpen }
    Shortcut { sequence: "Escape"; enabled: window.page !== 0; onActivated: window.page = 0 }
    Shortcut { sequence: StandardKey.Quit; onActivated: window.close() }

    header: Rectangle {
        implicitHeight: bar.implicitHeight + 8
        color: Theme.surface
        RowLayout {
            id: bar
            anchors.fill: parent
            anchors.margins: 4
            Label {
                text: "Ava"
                font.bold: true
                color: Theme.text
                leftPadding: 6
            }
            Label {
                objectName: "connectionLabel"
                textFormat: Text.PlainText
                text: workbench.connection.state === "connected"
                      ? "connected to ava-backend" + (workbench.machineName !== "local" ? " on " + workbench.machineName : "")
                        + " (pid " + workbench.connection.pid + ")"
                      : workbench.connection.state + (workbench.connection.message !== "" ? ": " + workbench.connection.message : "")
                color: workbench.connection.state === "connected" ? Theme.muted : Theme.warning
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            Label {
                visible: workbench.pendingInputs > 0
                text: workbench.pendingInputs + " unsent"
                color: Theme.warning
            }
            ToolButton {
                objectName: "automationsButton"
                text: "Automations"
                onClicked: window.page = window.page === 2 ? 0 : 2
            }
            ToolButton {
                objectName: "analyticsButton"
                text: "Analytics"
                onClicked: window.page = window.page === 3 ? 0 : 3
            }
            ToolButton {
                objectName: "filesButton"
                text: "Files"
                checkable: true
                checked: window.filesOpen
                enabled: workbench.projectId !== ""
                onClicked: window.filesOpen = !window.filesOpen
            }
            ToolButton { text: "Settings"; onClicked: window.page = window.page === 1 ? 0 : 1 }
        }
    }

    SplitView {
        anchors.fill: parent
        orientation: Qt.Horizontal
        Sidebar {
            id: sidebar
            workbench: window.workbenchObject
            SplitView.preferredWidth: workbench.setting("window/sidebar", 280)
            SplitView.minimumWidth: 200
        }
        StackLayout {
            SplitView.fillWidth: true
            currentIndex: window.page
            ConversationView {
                id: conversationView
                workbench: window.workbenchObject
            }
            SettingsPage {
                workbench: window.workbenchObject
                themeMode: window.themeMode
                onThemeChosen: (mode) => window.chooseTheme(mode)
                onCloseRequested: window.page = 0
            }
            AutomationsPage {
                objectName: "automationsPage"
                workbench: window.workbenchObject
                onCloseRequested: window.page = 0
                onOpenConversation: (id) => { window.workbenchObject.selectConversation(id); window.page = 0 }
            }
            AnalyticsPage {
                objectName: "analyticsPage"
                workbench: window.workbenchObject
                onCloseRequested: window.page = 0
            }
        }
        // Made on first use: the window's first frame does not wait for it.
        Loader {
            id: filesPanel
            objectName: "filesPanelLoader"
            visible: window.filesOpen
            active: window.filesUsed
            SplitView.preferredWidth: workbench.setting("window/files", 440)
            SplitView.minimumWidth: 260
            onWidthChanged: if (visible && item) workbench.setSetting("window/files", width)
            function openQuick() { if (item) item.openQuick() }
            sourceComponent: FilesPanel {
                objectName: "filesPanel"
                files: workbench.files
                projectName: {
                    const at = workbench.projects.indexOf(workbench.projectId)
                    return at >= 0 ? workbench.projects.get(at).name : ""
                }
                onCloseRequested: window.filesOpen = false
            }
        }
    }
    readonly property var workbenchObject: workbench

    // Nothing configured yet: the first-run choices, over the conversation.
    FirstRunPanel {
        objectName: "firstRunPanel"
        workbench: window.workbenchObject
        visible: workbench.needsSetup && window.page === 0
        width: Math.min(560, parent.width - sidebar.width - 48)
        x: sidebar.width + (parent.width - sidebar.width - width) / 2
        y: 24
        z: 5
    }

    // Errors from the backend (a refused request), dismissed by a click.
    Rectangle {
        visible: workbench.lastError !== ""
        anchors.bottom: parent.bottom
        anchors.horizontalCenter: parent.horizontalCenter
        anchors.bottomMargin: 90
        width: Math.min(parent.width - 40, errorText.implicitWidth + 24)
        height: errorText.implicitHeight + 14
        radius: Theme.radius
        color: Theme.error
        Text { id: errorText; anchors.centerIn: parent; text: workbench.lastError; textFormat: Text.PlainText; color: "#ffffff" }
        MouseArea { anchors.fill: parent; onClicked: workbench.clearError() }
    }
}
