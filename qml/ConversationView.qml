import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The open conversation: its items (from the C++ ConversationModel), the
// live text of the step in progress, and the composer.
Rectangle {
    id: root
    property var workbench
    readonly property var conversation: workbench ? workbench.conversation : null
    property alias composer: composer
    color: Theme.background

    function scrollToEnd() { list.positionViewAtEnd() }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                objectName: "conversationTitle"
                textFormat: Text.PlainText
                text: root.workbench && root.workbench.conversationTitle !== "" ? root.workbench.conversationTitle : "No conversation"
                font.pixelSize: 16
                font.bold: true
                color: Theme.text
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            Label {
                objectName: "goalLabel"
                visible: text !== ""
                textFormat: Text.PlainText
                text: root.conversation && root.conversation.goal !== "" ? "Goal: " + root.conversation.goal : ""
                color: Theme.accent
                elide: Text.ElideRight
                Layout.maximumWidth: 280
                ToolTip.visible: goalHover.hovered
                ToolTip.text: "Reminded to the model at every turn; /goal clear clears it"
                HoverHandler { id: goalHover }
            }
            Label {
                objectName: "activityLabel"
                textFormat: Text.PlainText
                text: root.conversation ? (root.conversation.activity !== "" ? root.conversation.activity : root.conversation.driverState) : ""
                color: root.conversation && root.conversation.driverState === "running" ? Theme.accent : Theme.muted
            }
            // The conversation's permission mode and the rules in force.
            ComboBox {
                id: modeBox
                objectName: "permissionModeBox"
                readonly property var modes: ["ask", "accept-edits", "plan", "auto"]
                readonly property string current: root.workbench && root.workbench.permissions.mode
                                                  ? root.workbench.permissions.mode : ""
                visible: current !== ""
                model: ["Ask before changes", "Accept edits", "Plan (read-only)", "Auto"]
                currentIndex: Math.max(0, modes.indexOf(current))
                implicitContentWidthPolicy: ComboBox.WidestText
                onActivated: (index) => root.workbench.setPermissionMode(modes[index])
                ToolTip.visible: hovered
                ToolTip.text: root.workbench && root.workbench.permissions.mode
                              ? "Mode from " + root.workbench.permissions.modeSource + ". Sandbox: "
                                + root.workbench.permissions.sandbox + ". " + root.workbench.permissions.sandboxSupport
                              : ""
            }
            ToolButton {
                objectName: "rulesButton"
                readonly property var rules: root.workbench && root.workbench.permissions.rules
                                             ? root.workbench.permissions.rules : []
                visible: rules.length > 0
                text: "Rules (" + rules.length + ")"
                onClicked: rulesPopup.open()
                Popup {
                    id: rulesPopup
                    objectName: "rulesPopup"
                    y: parent.height
                    padding: 8
                    contentItem: Column {
                        spacing: 4
                        Repeater {
                            model: rulesPopup.parent.rules
                            delegate: Label {
                                required property var modelData
                                textFormat: Text.PlainText
                                text: modelData.list + "  " + modelData.rule + "   (" + modelData.source + ")"
                                color: modelData.list === "deny" ? Theme.error
                                       : modelData.list === "allow" ? Theme.ok : Theme.warning
                                font.family: Theme.monoFamily
                                font.pixelSize: 12
                            }
                        }
                    }
                }
            }
            Label {
                objectName: "usageLabel"
                text: root.conversation ? ("↑" + root.conversation.inputTokens + " ↓" + root.conversation.outputTokens
                      + (root.workbench.costUsd > 0 ? " · $" + root.workbench.costUsd.toFixed(4) : "")) : ""
                color: Theme.muted
                font.pixelSize: 11
            }
        }

        ListView {
            id: list
            objectName: "eventList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 8
            model: root.conversation
            reuseItems: true
            cacheBuffer: 800
            // Follow the end while the user is there.
            property bool atEnd: true
            onMovementEnded: atEnd = list.atYEnd
            onCountChanged: if (atEnd) Qt.callLater(list.positionViewAtEnd)
            ScrollBar.vertical: ScrollBar {}

            delegate: EventDelegate {
                width: ListView.view.width
                onOpenSubagent: (sessionId, agent) => root.workbench.openSubagent(sessionId, agent)
            }

            footer: Column {
                width: list.width
                spacing: 8
                topPadding: 8
                ThinkingBlock {
                    width: parent.width
                    visible: root.conversation && root.conversation.liveThinking !== ""
                    text: root.conversation ? root.conversation.liveThinking : ""
                    live: true
                }
                MessageItem {
                    objectName: "liveText"
                    width: parent.width
                    visible: root.conversation && root.conversation.liveText !== ""
                    text: root.conversation ? root.conversation.liveText : ""
                    live: true
                    onImplicitHeightChanged: if (list.atEnd) Qt.callLater(list.positionViewAtEnd)
                }
            }

            Label {
                anchors.centerIn: parent
                visible: list.count === 0
                text: root.workbench && root.workbench.conversationId !== "" ? "Nothing here yet" : "Select or start a conversation (Ctrl+N)"
                color: Theme.muted
            }
        }

        PlanCard {
            id: planCard
            objectName: "planCard"
            Layout.fillWidth: true
            shown: root.conversation !== null && root.conversation.planAwaitingApproval
                   && (!root.conversation.pendingApproval || !root.conversation.pendingApproval.approvalId)
            currentMode: root.workbench && root.workbench.permissions.mode ? root.workbench.permissions.mode : ""
            onApproved: (mode) => { list.atEnd = true; root.workbench.approvePlan(mode) }
        }

        ApprovalCard {
            id: approvalCard
            objectName: "approvalCard"
            Layout.fillWidth: true
            approval: root.conversation ? root.conversation.pendingApproval : ({})
            waiting: root.conversation ? root.conversation.waitingApprovals : 0
            onDecided: (approvalId, decision, scope, rule, message) =>
                root.workbench.decideApproval(approvalId, decision, scope, rule, message)
        }

        Composer {
            id: composer
            objectName: "composer"
            Layout.fillWidth: true
            active: root.workbench && root.workbench.conversationId !== "" && root.workbench.connection.state === "connected"
            driverState: root.conversation && root.conversation.driverState !== "" ? root.conversation.driverState : "idle"
            modelChoices: root.workbench ? root.workbench.modelChoices : []
            commands: root.workbench ? root.workbench.commands : []
            currentModel: root.conversation && root.conversation.model !== "" ? root.conversation.provider + "/" + root.conversation.model : ""
            inspectImage: root.workbench ? (file) => root.workbench.imageInfo(file) : null
            fileMatches: root.workbench ? root.workbench.files.matches : []
            onMentionQuery: (query) => { if (root.workbench) root.workbench.files.search(query) }
            onSubmitted: (text, kind, images) => { list.atEnd = true; root.workbench.send(text, kind, images) }
            onPauseRequested: root.workbench.pause()
            onResumeRequested: root.workbench.resume()
            onAbortRequested: root.workbench.abort()
            onModelChosen: (provider, model) => root.workbench.setModel(provider, model)
        }
    }

    // A subagent's own log, over the right side of the conversation.
    SubagentPanel {
        objectName: "subagentPanel"
        anchors.top: parent.top
        anchors.bottom: parent.bottom
        anchors.right: parent.right
        width: Math.min(parent.width * 0.6, 560)
        workbench: root.workbench
    }
}
