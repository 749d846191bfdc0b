import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The plan a /plan turn answered with, above the composer while it waits for
// the person (the web UI's card): "Approve and run" switches to the chosen
// mode and starts the next turn with the plan; typing instead keeps planning.
// Folded to no height rather than hidden (see ApprovalCard.qml).
Rectangle {
    id: root
    property bool shown: false
    property string currentMode: ""
    readonly property var modes: ["ask", "accept-edits", "auto"]
    signal approved(string mode)

    implicitHeight: shown ? column.implicitHeight + 16 : 0
    clip: true
    enabled: shown
    radius: Theme.radius
    color: shown ? Theme.raised : "transparent"
    border.color: Theme.accent
    border.width: shown ? 1 : 0

    // Leaving plan mode is the point of approving: plan is never offered.
    onShownChanged: if (shown) modeChoice.currentIndex = Math.max(0, modes.indexOf(currentMode))

    function approve() { if (shown) approved(modes[modeChoice.currentIndex]) }

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6
        Label {
            objectName: "planCardText"
            Layout.fillWidth: true
            textFormat: Text.PlainText
            text: "The plan above waits for you. Approve it to run it, or reply to change it."
            wrapMode: Text.Wrap
            color: Theme.text
        }
        RowLayout {
            objectName: "planCardActions"
            Layout.fillWidth: true
            Label { text: "Run it"; color: Theme.muted }
            ComboBox {
                id: modeChoice
                objectName: "planModeChoice"
                model: ["asking before changes", "accepting edits", "auto"]
                implicitContentWidthPolicy: ComboBox.WidestText
            }
            Item { Layout.fillWidth: true }
            Button {
                objectName: "approvePlanButton"
                text: "Approve and run"
                highlighted: true
                onClicked: root.approve()
            }
        }
    }
}
