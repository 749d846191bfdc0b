import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Automations (the web UI's page): scheduled prompts the backend runs, each
// run a conversation. The list shows the next and the last run; the form
// shows the next five runs of the schedule as it is typed.
Rectangle {
    id: root
    property var workbench
    property bool adding: false
    property string historyOf: ""
    signal closeRequested()
    signal openConversation(string conversationId)
    color: Theme.background

    function when(ms) { return ms ? new Date(ms).toLocaleString(Qt.locale(), Locale.ShortFormat) : "—" }
    function schedulePreviewNow() {
        if (root.workbench && scheduleField.text.trim() !== "")
            root.workbench.previewSchedule(kindBox.currentValue, scheduleField.text, zoneField.text)
    }
    function submit() {
        const fields = {
            name: nameField.text, project: projectField.text, prompt: promptField.text,
            timeZone: zoneField.text, overlap: overlapBox.currentValue, missed: missedBox.currentValue
        }
        fields[kindBox.currentValue] = scheduleField.text
        root.workbench.addAutomation(fields)
        root.adding = false
    }

    onVisibleChanged: if (visible && workbench) workbench.loadAutomations()

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 16
        spacing: 10
        RowLayout {
            Layout.fillWidth: true
            Label { text: "Automations"; font.pixelSize: 18; font.bold: true; color: Theme.text; Layout.fillWidth: true }
            Button { objectName: "newAutomationButton"; text: "New automation"; onClicked: root.adding = !root.adding }
            Button { text: "Close"; onClicked: root.closeRequested() }
        }

        // The form: folded to no height when closed (see ApprovalCard.qml).
        Rectangle {
            objectName: "automationForm"
            Layout.fillWidth: true
            implicitHeight: root.adding ? form.implicitHeight + 16 : 0
            clip: true
            enabled: root.adding
            radius: Theme.radius
            color: Theme.surface
            border.color: root.adding ? Theme.border : "transparent"
            GridLayout {
                id: form
                anchors.fill: parent
                anchors.margins: 8
                columns: 2
                Label { text: "Name"; color: Theme.muted }
                TextField { id: nameField; objectName: "automationName"; Layout.fillWidth: true; placeholderText: "nightly-tests" }
                Label { text: "Project"; color: Theme.muted }
                TextField {
                    id: projectField
                    objectName: "automationProject"
                    Layout.fillWidth: true
                    placeholderText: "/home/me/project"
                    text: {
                        if (!root.workbench || !root.adding) return ""
                        const at = root.workbench.projects.indexOf(root.workbench.projectId)
                        return at >= 0 ? root.workbench.projects.get(at).path : ""
                    }
                }
                Label { text: "Prompt"; color: Theme.muted }
                TextField { id: promptField; objectName: "automationPrompt"; Layout.fillWidth: true; placeholderText: "Run the tests and fix what fails" }
                Label { text: "Schedule"; color: Theme.muted }
                RowLayout {
                    Layout.fillWidth: true
                    ComboBox {
                        id: kindBox
                        objectName: "automationKind"
                        textRole: "text"
                        valueRole: "value"
                        model: [{ text: "Cron", value: "cron" }, { text: "Every", value: "every" }, { text: "Once at", value: "at" }]
                        onActivated: {
                            scheduleField.text = currentValue === "cron" ? "0 9 * * mon-fri" : currentValue === "every" ? "1h" : ""
                            root.schedulePreviewNow()
                        }
                    }
                    TextField {
                        id: scheduleField
                        objectName: "automationSchedule"
                        Layout.fillWidth: true
                        text: "0 9 * * mon-fri"
                        onTextEdited: previewTimer.restart()
                    }
                    TextField {
                        id: zoneField
                        objectName: "automationZone"
                        text: "UTC"
                        placeholderText: "Europe/Berlin"
                        onTextEdited: previewTimer.restart()
                    }
                }
                Label { text: "Next runs"; color: Theme.muted; Layout.alignment: Qt.AlignTop }
                Label {
                    objectName: "schedulePreview"
                    Layout.fillWidth: true
                    textFormat: Text.PlainText
                    wrapMode: Text.Wrap
                    color: root.workbench && root.workbench.schedulePreviewError !== "" ? Theme.error : Theme.text
                    text: !root.workbench ? "" : root.workbench.schedulePreviewError !== ""
                          ? root.workbench.schedulePreviewError : root.workbench.schedulePreview.join("\n")
                }
                Label { text: "If still running"; color: Theme.muted }
                ComboBox {
                    id: overlapBox
                    textRole: "text"
                    valueRole: "value"
                    model: [{ text: "skip the new run", value: "skip" }, { text: "queue one", value: "queue" }, { text: "run both", value: "allow" }]
                }
                Label { text: "Missed while off"; color: Theme.muted }
                ComboBox {
                    id: missedBox
                    textRole: "text"
                    valueRole: "value"
                    model: [{ text: "skip", value: "skip" }, { text: "run once", value: "run-once" }]
                }
                Item { width: 1 }
                Button {
                    objectName: "addAutomationButton"
                    text: "Add automation"
                    highlighted: true
                    enabled: nameField.text !== "" && projectField.text !== "" && promptField.text !== ""
                    onClicked: root.submit()
                }
            }
            Timer { id: previewTimer; interval: 250; onTriggered: root.schedulePreviewNow() }
        }
        onVisibleChanged: if (visible) root.schedulePreviewNow()

        ListView {
            objectName: "automationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 8
            model: root.workbench ? root.workbench.automations : null
            delegate: Rectangle {
                id: item
                required property string id
                required property string name
                required property string scheduleKind
                required property string schedule
                required property string timeZone
                required property bool enabled
                required property var nextRunMs
                required property string lastState
                required property string lastError
                required property string lastConversation
                required property string prompt
                width: ListView.view.width
                implicitHeight: column.implicitHeight + 16
                radius: Theme.radius
                color: Theme.surface
                border.color: Theme.border
                ColumnLayout {
                    id: column
                    anchors.fill: parent
                    anchors.margins: 8
                    RowLayout {
                        Label { text: item.name; font.bold: true; color: Theme.text; textFormat: Text.PlainText }
                        Label {
                            textFormat: Text.PlainText
                            text: (item.scheduleKind === "every" ? "every " : item.scheduleKind === "at" ? "at " : "") + item.schedule
                            font.family: Theme.monoFamily
                            color: Theme.text
                        }
                        Label { text: item.timeZone; color: Theme.muted; textFormat: Text.PlainText }
                        Label { visible: !item.enabled; text: "paused"; color: Theme.warning }
                    }
                    RowLayout {
                        Label { objectName: "nextRun"; text: "Next: " + (item.enabled ? root.when(item.nextRunMs) : "—"); color: Theme.text }
                        Label {
                            objectName: "lastState"
                            text: "Last: " + (item.lastState === "" ? "—" : item.lastState)
                            color: item.lastState === "failed" ? Theme.error : item.lastState === "finished" ? Theme.ok : Theme.muted
                            ToolTip.visible: lastHover.hovered && item.lastError !== ""
                            ToolTip.text: item.lastError
                            HoverHandler { id: lastHover }
                        }
                        Label { text: item.prompt; color: Theme.muted; elide: Text.ElideRight; Layout.fillWidth: true; textFormat: Text.PlainText }
                    }
                    RowLayout {
                        Button { objectName: "runNowButton"; text: "Run now"; onClicked: root.workbench.runAutomation(item.id) }
                        Button { text: item.enabled ? "Pause" : "Resume"; onClicked: root.workbench.setAutomationEnabled(item.id, !item.enabled) }
                        Button {
                            objectName: "historyButton"
                            text: "History"
                            onClicked: {
                                root.historyOf = root.historyOf === item.id ? "" : item.id
                                if (root.historyOf !== "") root.workbench.loadAutomationHistory(item.id)
                            }
                        }
                        Button { text: "Remove"; onClicked: root.workbench.removeAutomation(item.id) }
                    }
                    Repeater {
                        model: root.historyOf === item.id && root.workbench ? root.workbench.automationHistory : []
                        delegate: RowLayout {
                            required property var modelData
                            Label { text: root.when(modelData.scheduledMs); color: Theme.text }
                            Label {
                                text: modelData.state === "claimed" ? "queued" : modelData.state
                                color: modelData.state === "failed" ? Theme.error : modelData.state === "finished" ? Theme.ok : Theme.muted
                            }
                            Label { text: modelData.trigger; color: Theme.muted }
                            Label { text: modelData.error; color: Theme.muted; elide: Text.ElideRight; Layout.maximumWidth: 300; textFormat: Text.PlainText }
                            Button {
                                visible: modelData.conversationId !== ""
                                text: "Open"
                                flat: true
                                onClicked: root.openConversation(modelData.conversationId)
                            }
                        }
                    }
                }
            }
            Label {
                anchors.centerIn: parent
                visible: parent.count === 0
                text: "No automations yet: a scheduled prompt runs as a conversation of its own, even with every window closed."
                color: Theme.muted
            }
        }
    }
}
