import QtQuick
import QtQuick.Layouts
import Ava

// A user message (plain, in a bubble) or an assistant answer (Markdown,
// turned into rich text by Ava.Markdown: raw HTML shown as text, images as
// links, never loaded; only http, https and mailto links open).
Item {
    id: root
    property string role: "assistant"
    property string text: ""
    property string inputKind: ""
    property bool claimed: true
    property string blocked: ""  // a hook kept it from the model: why
    property bool plan: false    // a /plan input: its turn only plans
    property string output: ""   // role "command": the agent's own answer (Markdown)
    property bool live: false

    implicitHeight: bubble.implicitHeight

    // Opens a link from the text if it is http, https or mailto; false if refused.
    function openLink(link) { return Markdown.open(link) }

    Rectangle {
        id: bubble
        width: root.role === "user" ? Math.min(root.width * 0.85, typed.implicitWidth + 24) : root.width
        anchors.right: root.role === "user" ? parent.right : undefined
        implicitHeight: column.implicitHeight + 16
        radius: Theme.radius
        color: root.role === "user" ? Theme.userBubble : root.role === "command" ? Theme.surface : "transparent"

        ColumnLayout {
            id: column
            anchors.fill: parent
            anchors.margins: 8
            spacing: 2
            Text {
                readonly property string state: root.blocked !== "" ? "not sent" : (!root.claimed ? "queued" : "")
                visible: root.role === "user" && (root.inputKind === "steer" || root.plan || state !== "")
                text: [root.inputKind === "steer" ? "steer" : "", root.plan ? "plan only" : "", state]
                      .filter(s => s !== "").join(" · ")
                color: Theme.muted
                font.pixelSize: 11
            }
            // What the user typed, shown as typed. Two editors, each with a
            // fixed format, so that no binding order can ever show a user's
            // text as rich text (a delegate may turn from answer to question).
            TextEdit {
                id: typed
                objectName: "typedText"
                visible: root.role === "user" || root.role === "command"
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                text: root.role === "user" || root.role === "command" ? root.text : ""
                textFormat: TextEdit.PlainText
                wrapMode: Text.Wrap
                color: root.role === "command" ? Theme.accent : Theme.text
                font.family: root.role === "command" ? Theme.monoFamily : Qt.application.font.family
                selectionColor: Theme.accent
                font.strikeout: root.blocked !== ""
            }
            Text {
                objectName: "blockedReason"
                visible: root.role === "user" && root.blocked !== ""
                Layout.fillWidth: true
                text: "A hook kept this from the model: " + root.blocked
                textFormat: Text.PlainText
                wrapMode: Text.Wrap
                color: Theme.error
                font.pixelSize: 12
            }
            // An answer: Markdown, made rich text without raw HTML or images.
            TextEdit {
                id: body
                objectName: "messageText"
                visible: root.role !== "user"
                Layout.fillWidth: true
                readOnly: true
                selectByMouse: true
                text: root.role === "user" ? "" : Markdown.toRichText(root.role === "command" ? root.output : root.text, !root.live)
                textFormat: TextEdit.RichText
                wrapMode: Text.Wrap
                color: Theme.text
                selectionColor: Theme.accent
                onLinkActivated: (link) => root.openLink(link)
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
