import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One tool call and its result: bash shows the command, exit status and
// output; edit shows its diff; others their arguments and output.
Rectangle {
    id: root
    property string toolName: ""
    property string title: toolName
    property string status: "running"
    property string arguments: ""
    property string command: ""
    property string path: ""
    property string diff: ""
    property string exitInfo: ""
    property bool exitBad: false
    property string output: ""
    // A task call's subagent, once it reported: its session and definition.
    property string subagentSession: ""
    property string subagentAgent: ""
    property bool expanded: true
    signal openSubagent(string sessionId, string agent)
    readonly property var diffLines: diff === "" ? [] : diff.replace(/\n$/, "").split("\n").slice(0, 2000)
    readonly property string statusLabel: ({ running: "running", waiting: "waiting for approval", ok: "done", error: "failed", interrupted: "interrupted", skipped: "skipped" })[status] || status

    implicitHeight: column.implicitHeight + 12
    radius: Theme.radius
    color: Theme.surface
    border.color: status === "error" ? Theme.error : Theme.border

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 6
        spacing: 6

        RowLayout {
            Layout.fillWidth: true
            AbstractButton {
                objectName: "toolToggle"
                Layout.fillWidth: true
                implicitHeight: header.implicitHeight + 4
                onClicked: root.expanded = !root.expanded
                contentItem: Text {
                    id: header
                    text: (root.expanded ? "▾ " : "▸ ") + root.title
                    textFormat: Text.PlainText
                    color: Theme.text
                    font.bold: true
                    elide: Text.ElideRight
                }
            }
            Rectangle {
                objectName: "statusBadge"
                radius: 8
                color: "transparent"
                border.color: Theme.statusColor(root.status)
                implicitWidth: badge.implicitWidth + 14
                implicitHeight: badge.implicitHeight + 4
                Text {
                    id: badge
                    anchors.centerIn: parent
                    text: root.statusLabel
                    color: Theme.statusColor(root.status)
                    font.pixelSize: 11
                }
            }
        }

        ColumnLayout {
            objectName: "toolBody"
            visible: root.expanded
            Layout.fillWidth: true
            spacing: 4

            Text {
                objectName: "commandText"
                visible: root.toolName === "bash"
                Layout.fillWidth: true
                text: "$ " + root.command
                font.family: Theme.monoFamily
                color: Theme.text
                wrapMode: Text.WrapAnywhere
                textFormat: Text.PlainText
            }
            Text {
                objectName: "pathText"
                visible: root.toolName !== "bash" && root.path !== ""
                text: root.path
                textFormat: Text.PlainText
                color: Theme.muted
                font.family: Theme.monoFamily
            }
            RowLayout {
                visible: root.subagentSession !== ""
                Label {
                    textFormat: Text.PlainText
                    text: "Subagent " + root.subagentAgent
                    color: Theme.muted
                }
                Button {
                    objectName: "openSubagentButton"
                    text: "Open its log"
                    flat: true
                    onClicked: root.openSubagent(root.subagentSession, root.subagentAgent)
                }
            }
            Text {
                objectName: "exitText"
                visible: root.exitInfo !== ""
                text: root.exitInfo
                textFormat: Text.PlainText
                color: root.exitBad ? Theme.error : Theme.muted
                font.pixelSize: 11
            }
            Text {
                objectName: "argumentsText"
                visible: root.toolName !== "bash" && root.diff === "" && root.arguments !== "" && root.arguments !== "{}"
                Layout.fillWidth: true
                text: root.arguments
                font.family: Theme.monoFamily
                color: Theme.muted
                wrapMode: Text.WrapAnywhere
                textFormat: Text.PlainText
                maximumLineCount: 20
                elide: Text.ElideRight
            }
            // The diff, a row per line (long diffs are cut at 2,000 lines).
            Column {
                objectName: "diffView"
                visible: root.diffLines.length > 0
                Layout.fillWidth: true
                Repeater {
                    model: root.diffLines
                    delegate: Rectangle {
                        required property string modelData
                        readonly property string kind: modelData.startsWith("+++") || modelData.startsWith("---") ? "file"
                            : modelData.startsWith("@@") ? "hunk" : modelData.startsWith("+") ? "add"
                            : modelData.startsWith("-") ? "del" : "context"
                        width: parent ? parent.width : 0
                        implicitHeight: line.implicitHeight
                        color: kind === "add" ? Theme.diffAdd : kind === "del" ? Theme.diffDel : kind === "hunk" ? Theme.diffHunk : "transparent"
                        Text {
                            id: line
                            width: parent.width
                            text: parent.modelData
                            font.family: Theme.monoFamily
                            font.bold: parent.kind === "file"
                            color: Theme.text
                            wrapMode: Text.WrapAnywhere
                            textFormat: Text.PlainText
                        }
                    }
                }
            }
            Rectangle {
                visible: root.output !== "" && (root.diff === "" || root.status !== "ok")
                Layout.fillWidth: true
                implicitHeight: Math.min(outputText.implicitHeight, 320) + 8
                color: Theme.codeBackground
                radius: 4
                clip: true
                Flickable {
                    anchors.fill: parent
                    anchors.margins: 4
                    contentHeight: outputText.implicitHeight
                    interactive: outputText.implicitHeight > height
                    boundsBehavior: Flickable.StopAtBounds
                    Text {
                        id: outputText
                        objectName: "outputText"
                        width: parent.width
                        text: root.output
                        font.family: Theme.monoFamily
                        color: Theme.text
                        wrapMode: Text.WrapAnywhere
                        textFormat: Text.PlainText
                    }
                }
            }
        }
    }
}
