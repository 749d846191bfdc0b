import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The input box and the turn controls. Enter sends (as the chosen kind),
// Shift+Enter is a new line, Ctrl+Enter steers the running turn.
Rectangle {
    id: root
    property string driverState: "idle"
    property bool active: true
    property var modelChoices: []
    property string currentModel: ""
    property alias text: input.text
    readonly property bool running: driverState === "running" || driverState === "pausing"
    readonly property bool paused: driverState === "paused"

    signal submitted(string text, string kind)
    signal pauseRequested()
    signal resumeRequested()
    signal abortRequested()
    signal modelChosen(string provider, string model)

    // Sends what is typed; returns false when there is nothing to send.
    function submit(kind) {
        const text = input.text
        if (!root.active || text.trim() === "") return false
        root.submitted(text, kind || (kindBox.currentIndex === 1 ? "steer" : "followup"))
        input.text = ""
        return true
    }
    function focusInput() { input.forceActiveFocus() }

    implicitHeight: column.implicitHeight + 16
    color: Theme.surface
    border.color: Theme.border
    radius: Theme.radius

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6

        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(Math.max(input.implicitHeight, 48), 200)
            TextArea {
                id: input
                objectName: "composerInput"
                placeholderText: root.running ? "Steer the running turn or queue a follow-up…" : "Ask Ava…"
                wrapMode: TextEdit.Wrap
                color: Theme.text
                placeholderTextColor: Theme.muted
                background: null
                Keys.onPressed: (event) => {
                    if (event.key !== Qt.Key_Return && event.key !== Qt.Key_Enter) return
                    if (event.modifiers & Qt.ShiftModifier) return  // a new line
                    root.submit((event.modifiers & Qt.ControlModifier) ? "steer" : "")
                    event.accepted = true
                }
            }
        }

        RowLayout {
            Layout.fillWidth: true
            spacing: 6
            ComboBox {
                id: kindBox
                objectName: "kindBox"
                model: ["Follow-up", "Steer"]
                implicitWidth: 120
            }
            ComboBox {
                id: modelBox
                objectName: "modelBox"
                Layout.fillWidth: true
                Layout.maximumWidth: 320
                model: root.modelChoices
                displayText: root.currentModel !== "" ? root.currentModel : "Model"
                onActivated: (index) => {
                    const choice = root.modelChoices[index]
                    const slash = choice.indexOf("/")
                    root.modelChosen(choice.slice(0, slash), choice.slice(slash + 1))
                }
            }
            Item { Layout.fillWidth: true }
            Button {
                objectName: "pauseButton"
                opacity: enabled ? 1 : 0.45
                text: root.paused ? "Resume" : "Pause"
                enabled: root.active && (root.running || root.paused)
                onClicked: root.paused ? root.resumeRequested() : root.pauseRequested()
            }
            Button {
                objectName: "abortButton"
                opacity: enabled ? 1 : 0.45
                text: "Abort"
                enabled: root.active && (root.running || root.paused)
                onClicked: root.abortRequested()
            }
            Button {
                objectName: "sendButton"
                text: kindBox.currentIndex === 1 ? "Steer" : "Send"
                highlighted: true
                enabled: root.active && input.text.trim() !== ""
                onClicked: root.submit("")
            }
        }
    }
}
