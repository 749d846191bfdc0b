import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Machines (MachinesPanel.qml), projects and the project's conversations (pinned first; a dot
// marks events the user has not reviewed).
Rectangle {
    id: root
    property var workbench
    color: Theme.surface

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6

        MachinesPanel {
            workbench: root.workbench
            Layout.fillWidth: true
        }

        Label { text: "Project"; color: Theme.muted; font.pixelSize: 11 }
        ComboBox {
            id: projectBox
            objectName: "projectBox"
            Layout.fillWidth: true
            model: root.workbench ? root.workbench.projects : null
            textRole: "name"
            valueRole: "id"
            currentIndex: root.workbench ? root.workbench.projects.indexOf(root.workbench.projectId) : -1
            onActivated: (index) => root.workbench.selectProject(root.workbench.projects.get(index).id)
        }
        RowLayout {
            Layout.fillWidth: true
            TextField {
                id: projectPath
                objectName: "projectPath"
                Layout.fillWidth: true
                placeholderText: "/path/to/folder"
                onAccepted: addButton.clicked()
            }
            Button {
                id: addButton
                text: "Add"
                enabled: projectPath.text !== ""
                onClicked: { root.workbench.addProject(projectPath.text); projectPath.text = "" }
            }
        }

        RowLayout {
            Layout.fillWidth: true
            Label { text: "Conversations"; color: Theme.muted; font.pixelSize: 11; Layout.fillWidth: true }
            Button {
                objectName: "newConversationButton"
                text: "New"
                onClicked: root.workbench.newConversation("")
                ToolTip.visible: hovered
                ToolTip.text: "New conversation (Ctrl+N)"
            }
        }
        ListView {
            id: conversationList
            objectName: "conversationList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: root.workbench ? root.workbench.conversations : null
            ScrollBar.vertical: ScrollBar {}
            delegate: ItemDelegate {
                id: entry
                required property string id
                required property string title
                required property bool pinned
                required property bool archived
                required property bool unread
                required property string state
                width: ListView.view.width
                highlighted: root.workbench && root.workbench.conversationId === id
                onClicked: root.workbench.selectConversation(id)
                contentItem: RowLayout {
                    spacing: 6
                    Rectangle {
                        width: 7; height: 7; radius: 3.5
                        color: entry.state === "running" ? Theme.accent : Theme.ok
                        visible: entry.unread || entry.state === "running"
                    }
                    Label {
                        text: (entry.pinned ? "📌 " : "") + entry.title
                        textFormat: Text.PlainText
                        color: entry.archived ? Theme.muted : Theme.text
                        font.italic: entry.archived
                        font.bold: entry.unread
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                    Label {
                        objectName: "needsApproval"
                        visible: entry.state === "waiting"
                        text: "needs you"
                        font.pixelSize: 10
                        color: Theme.warning
                        Accessible.name: "waiting for your approval"
                    }
                    ToolButton {
                        text: entry.pinned ? "Unpin" : "Pin"
                        font.pixelSize: 10
                        visible: entry.hovered || entry.highlighted
                        onClicked: root.workbench.setPinned(entry.id, !entry.pinned)
                    }
                    ToolButton {
                        text: entry.archived ? "Restore" : "Archive"
                        font.pixelSize: 10
                        visible: entry.hovered || entry.highlighted
                        onClicked: root.workbench.setArchived(entry.id, !entry.archived)
                    }
                    ToolButton {
                        objectName: "deleteConversation"
                        text: "Delete"
                        font.pixelSize: 10
                        visible: entry.archived && (entry.hovered || entry.highlighted)
                        Accessible.name: "Delete " + entry.title
                        onClicked: {
                            confirmDelete.conversationId = entry.id
                            confirmDelete.conversationTitle = entry.title
                            confirmDelete.open()
                        }
                    }
                }
            }
        }
        CheckBox {
            text: "Show archived"
            checked: root.workbench ? root.workbench.showArchived : false
            onToggled: root.workbench.showArchived = checked
        }
        Label {
            objectName: "totalUsage"
            visible: root.workbench && root.workbench.totalUsage.inputTokens !== undefined
            text: root.workbench && root.workbench.totalUsage.inputTokens !== undefined
                  ? "All conversations: ↑" + root.workbench.totalUsage.inputTokens + " ↓" + root.workbench.totalUsage.outputTokens + " tokens" : ""
            color: Theme.muted
            font.pixelSize: 11
        }
    }

    Dialog {
        id: confirmDelete
        objectName: "confirmDelete"
        property string conversationId
        property string conversationTitle
        title: "Delete “" + conversationTitle + "”?"
        modal: true
        anchors.centerIn: Overlay.overlay
        standardButtons: Dialog.Cancel | Dialog.Ok
        Label {
            text: "Its history and its subagents' logs are removed for good."
            wrapMode: Text.WordWrap
        }
        Component.onCompleted: standardButton(Dialog.Ok).text = "Delete"
        onAccepted: root.workbench.deleteConversation(conversationId)
    }
}
