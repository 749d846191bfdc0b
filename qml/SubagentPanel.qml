import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A subagent's own log (Workbench.subagent), opened from its task card: read
// only, followed while it runs. Escape or Close hides it.
Rectangle {
    id: root
    property var workbench
    readonly property bool shown: workbench !== null && workbench !== undefined && workbench.subagentAgent !== ""
    visible: shown
    color: Theme.background
    border.color: Theme.border
    z: 10

    Shortcut { sequence: "Escape"; enabled: root.shown; onActivated: root.workbench.closeSubagent() }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6
        RowLayout {
            Layout.fillWidth: true
            Label {
                objectName: "subagentTitle"
                Layout.fillWidth: true
                textFormat: Text.PlainText
                text: root.shown ? "Subagent " + root.workbench.subagentAgent : ""
                font.bold: true
                color: Theme.text
            }
            Label {
                objectName: "subagentState"
                text: root.shown && root.workbench.subagent.turnOpen ? "running" : "finished"
                color: Theme.muted
            }
            Button {
                objectName: "closeSubagentButton"
                text: "Close"
                onClicked: root.workbench.closeSubagent()
            }
        }
        ListView {
            objectName: "subagentList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 8
            model: root.shown ? root.workbench.subagent : null
            delegate: EventDelegate { width: ListView.view.width }
            ScrollBar.vertical: ScrollBar {}
        }
    }
}
