import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The call waiting for a person, above the composer (the web UI's card):
// what will run, why it asks, and the answers. Keys: Y allows once, A always
// allows in this project (the rule goes to .ava/settings.local.json), N
// denies with an optional note for the model. Keys typed into a text field
// stay there (the field takes them first).
Rectangle {
    id: root
    // ConversationModel.pendingApproval: approvalId, toolName, title, reason,
    // rule, suggestedRules, preview. Empty: nothing waits, the card hides.
    property var approval: ({})
    property int waiting: 0
    property bool denying: false
    readonly property bool shown: approval !== undefined && approval !== null && (approval.approvalId || "") !== ""
    readonly property var rules: shown && approval.suggestedRules ? approval.suggestedRules : []
    signal decided(string approvalId, string decision, string scope, string rule, string message)

    // Never hidden, only folded to no height: Qt 6.4's layouts leave the
    // children of an item that starts hidden at x = 0 when it appears.
    implicitHeight: shown ? column.implicitHeight + 16 : 0
    clip: true
    enabled: shown
    radius: Theme.radius
    color: shown ? Theme.raised : "transparent"
    border.color: Theme.warning
    border.width: shown ? 1 : 0

    onApprovalChanged: { denying = false; note.text = "" }

    function allowOnce() { if (shown) decided(approval.approvalId, "allow", "once", "", "") }
    function allowAlways() {
        if (shown && rules.length > 0)
            decided(approval.approvalId, "allow", "project", ruleChoice.currentText, "")
    }
    function deny() { if (shown) decided(approval.approvalId, "deny", "once", "", note.text.trim()) }

    Shortcut { sequence: "Y"; enabled: root.shown && !root.denying; onActivated: root.allowOnce() }
    Shortcut { sequence: "A"; enabled: root.shown && !root.denying; onActivated: root.allowAlways() }
    Shortcut { sequence: "N"; enabled: root.shown && !root.denying; onActivated: { root.denying = true; note.forceActiveFocus() } }

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6

        RowLayout {
            Layout.fillWidth: true
            Label {
                objectName: "approvalTitle"
                Layout.fillWidth: true
                textFormat: Text.PlainText
                text: !root.shown ? "" : root.approval.toolName === "bash" ? "Run this command?"
                      : (root.approval.title || root.approval.toolName) + "?"
                font.bold: true
                color: Theme.text
                elide: Text.ElideMiddle
            }
            Label {
                visible: root.waiting > 1
                text: (root.waiting - 1) + " more waiting"
                color: Theme.muted
                font.pixelSize: 11
            }
        }
        Label {
            objectName: "approvalReason"
            Layout.fillWidth: true
            textFormat: Text.PlainText
            text: !root.shown ? "" : root.approval.reason + (root.approval.rule ? " (rule " + root.approval.rule + ")" : "")
            color: Theme.muted
            wrapMode: Text.Wrap
            font.pixelSize: 12
        }
        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(preview.implicitHeight + 12, 220)
            clip: true
            TextArea {
                id: preview
                objectName: "approvalPreview"
                readOnly: true
                textFormat: TextEdit.PlainText
                text: !root.shown ? "" : (root.approval.toolName === "bash" ? "$ " : "") + root.approval.preview
                font.family: Theme.monoFamily
                color: Theme.text
                wrapMode: TextEdit.NoWrap
                background: Rectangle { color: Theme.codeBackground; radius: Theme.radius }
            }
        }
        RowLayout {
            objectName: "approvalActions"
            visible: !root.denying
            Layout.fillWidth: true
            spacing: 8
            Button {
                objectName: "allowOnceButton"
                text: "Allow once (Y)"
                highlighted: true
                onClicked: root.allowOnce()
            }
            // Always laid out, for the same reason: disabled when there is
            // no rule narrower than the tool itself to offer.
            Button {
                objectName: "allowAlwaysButton"
                enabled: root.rules.length > 0
                text: "Always allow in this project (A)"
                onClicked: root.allowAlways()
            }
            ComboBox {
                id: ruleChoice
                objectName: "ruleChoice"
                enabled: root.rules.length > 0
                model: root.rules.length > 0 ? root.rules : ["no rule to offer"]
                Layout.preferredWidth: 220
            }
            Item { Layout.fillWidth: true }
            Button {
                objectName: "denyButton"
                text: "Deny… (N)"
                onClicked: { root.denying = true; note.forceActiveFocus() }
            }
        }
        RowLayout {
            visible: root.denying
            Layout.fillWidth: true
            spacing: 8
            TextField {
                id: note
                objectName: "denyNote"
                Layout.fillWidth: true
                placeholderText: "What to do instead (optional)"
                onAccepted: root.deny()
                Keys.onEscapePressed: root.denying = false
            }
            Button {
                objectName: "confirmDenyButton"
                text: "Deny"
                onClicked: root.deny()
            }
            Button {
                text: "Back"
                onClicked: root.denying = false
            }
        }
    }
}
