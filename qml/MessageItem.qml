import QtQuick
import QtQuick.Layouts

// A user message (plain, in a bubble) or an assistant answer (Markdown).
Item {
    id: root
    property string role: "assistant"
    property string text: ""
    property string inputKind: ""
    property bool claimed: true
    property bool live: false

    implicitHeight: bubble.implicitHeight

    Rectangle {
        id: bubble
        width: root.role === "user" ? Math.min(root.width * 0.85, body.implicitWidth + 24) : root.width
        anchors.right: root.role === "user" ? parent.right : undefined
        implicitHeight: column.implicitHeight + 16
        radius: Theme.radius
        color: root.role === "user" ? Theme.userBubble : "transparent"

        ColumnLayout {
            id: column
            anchors.fill: parent
            anchors.margins: 8
            spacing: 2
            Text {
                visible: root.role === "user" && (root.inputKind === "steer" || !root.claimed)
                text: (root.inputKind === "steer" ? "steer" : "") + (!root.claimed ? (root.inputKind === "steer" ? " · " : "") + "queued" : "")
                color: Theme.muted
                font.pixelSize: 11
            }
            TextEdit {
                id: body
                objectName: "messageText"
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                text: root.text
                wrapMode: Text.Wrap
                color: Theme.text
                selectionColor: Theme.accent
                // Answers are Markdown; what the user typed is shown as typed.
                textFormat: root.role === "user" ? TextEdit.PlainText : TextEdit.MarkdownText
                onLinkActivated: (link) => Qt.openUrlExternally(link)
            }
            Text {
                visible: root.live
                text: "streaming…"
                color: Theme.muted
                font.pixelSize: 11
            }
        }
    }
}
