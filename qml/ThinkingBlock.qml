import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The model's reasoning: collapsed to one line unless opened (live thinking
// is shown open while it streams).
Rectangle {
    id: root
    property string text: ""
    property bool redacted: false
    property bool live: false
    property bool expanded: live

    implicitHeight: column.implicitHeight + 12
    color: "transparent"
    border.color: Theme.border
    radius: Theme.radius

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 6
        spacing: 4
        AbstractButton {
            id: toggle
            objectName: "thinkingToggle"
            Layout.fillWidth: true
            implicitHeight: label.implicitHeight + 4
            onClicked: root.expanded = !root.expanded
            contentItem: Text {
                id: label
                text: (root.expanded ? "▾ " : "▸ ") + (root.redacted ? "Thinking (redacted)" : root.live ? "Thinking…" : "Thinking")
                color: Theme.muted
                font.italic: true
            }
        }
        Text {
            objectName: "thinkingText"
            visible: root.expanded && !root.redacted
            Layout.fillWidth: true
            text: root.text
            wrapMode: Text.Wrap
            color: Theme.muted
            textFormat: Text.PlainText
        }
    }
}
