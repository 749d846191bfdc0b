import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QtQuick.Dialogs

// The input box and the turn controls. Enter sends (as the chosen kind),
// Shift+Enter is a new line, Ctrl+Enter steers the running turn. Images come
// in through Attach or by dropping files, each checked as it comes
// (`inspectImage`: Workbench.imageInfo) and shown as a chip until sent.
Rectangle {
    id: root
    property string driverState: "idle"
    property bool active: true
    property var modelChoices: []
    property string currentModel: ""
    // Slash commands to complete: [{name, description, argumentHint, scope}].
    property var commands: []
    property int selectedCommand: 0
    property string dismissedText: ""
    // The commands whose name starts with what follows "/", while only the
    // name is typed (as the web composer's matchingCommands).
    readonly property var suggestions: {
        const typed = /^\/([A-Za-z0-9_:-]*)$/.exec(input.text)
        if (!typed || input.text === dismissedText) return []
        const prefix = typed[1].toLowerCase()
        return (commands || []).filter(c => String(c.name).toLowerCase().startsWith(prefix)).slice(0, 50)
    }
    property alias text: input.text
    // "@name" at the caret: the project's files to mention (`fileMatches`,
    // [{path, html}], answered for each `mentionQuery`); the chosen path is
    // inserted as "@path ", which the agent can read.
    property var fileMatches: []
    signal mentionQuery(string query)
    readonly property var mention: {
        if (root.suggestions.length > 0 || input.text === dismissedText) return null
        const typed = /(?:^|\s)@([^\s@]*)$/.exec(input.text.slice(0, input.cursorPosition))
        return typed ? { start: input.cursorPosition - typed[1].length - 1, query: typed[1] } : null
    }
    onMentionChanged: if (mention) mentionQuery(mention.query)
    readonly property var mentionChoices: mention ? (fileMatches || []).slice(0, 8) : []
    function completeMention(index) {
        const choice = root.mentionChoices[index]
        const at = root.mention
        if (!choice || !at) return
        const inserted = "@" + choice.path + " "
        const caret = input.cursorPosition
        input.text = input.text.slice(0, at.start) + inserted + input.text.slice(caret)
        input.cursorPosition = at.start + inserted.length
        selectedCommand = 0
    }
    // The attached images ({path, name, size, url, mediaType}) and why the
    // last file was refused.
    property var images: []
    property string imageProblem: ""
    property var inspectImage: null
    function addImage(file) {
        const info = root.inspectImage ? root.inspectImage(String(file)) : null
        if (!info || !info.ok) {
            root.imageProblem = info ? info.error : "Images cannot be attached here."
            return false
        }
        if (root.images.some(image => image.path === info.path)) return true
        root.imageProblem = ""
        root.images = root.images.concat([info])
        return true
    }
    function removeImage(path) { root.images = root.images.filter(image => image.path !== path) }
    readonly property bool running: driverState === "running" || driverState === "pausing"
    readonly property bool paused: driverState === "paused"

    signal submitted(string text, string kind, var images)
    signal pauseRequested()
    signal resumeRequested()
    signal abortRequested()
    signal modelChosen(string provider, string model)

    // Sends what is typed; returns false when there is nothing to send.
    function submit(kind) {
        const text = input.text
        if (!root.active || (text.trim() === "" && root.images.length === 0)) return false
        root.submitted(text, kind || (kindBox.currentIndex === 1 ? "steer" : "followup"),
                       root.images.map(image => image.path))
        input.text = ""
        root.images = []
        root.imageProblem = ""
        return true
    }
    function focusInput() { input.forceActiveFocus() }
    function complete(index) {
        const command = suggestions[index]
        if (!command) return
        input.text = "/" + command.name + " "
        input.cursorPosition = input.text.length
        selectedCommand = 0
    }

    implicitHeight: column.implicitHeight + 16
    color: Theme.surface
    border.color: Theme.border
    radius: Theme.radius

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6

        ListView {
            id: commandList
            objectName: "commandList"
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 180)
            visible: root.suggestions.length > 0
            clip: true
            model: root.suggestions
            currentIndex: Math.min(root.selectedCommand, root.suggestions.length - 1)
            delegate: Rectangle {
                required property var modelData
                required property int index
                width: ListView.view.width
                height: row.implicitHeight + 8
                radius: 4
                color: index === commandList.currentIndex ? Theme.userBubble : "transparent"
                RowLayout {
                    id: row
                    anchors.fill: parent
                    anchors.leftMargin: 8
                    anchors.rightMargin: 8
                    spacing: 8
                    Text { text: "/" + modelData.name; font.family: "monospace"; font.bold: true; color: Theme.text; textFormat: Text.PlainText }
                    Text { text: modelData.argumentHint || ""; font.family: "monospace"; color: Theme.muted; textFormat: Text.PlainText }
                    Text { Layout.fillWidth: true; text: modelData.description || ""; color: Theme.muted; elide: Text.ElideRight; textFormat: Text.PlainText }
                    Text { text: modelData.scope || ""; color: Theme.muted; font.pixelSize: 11; textFormat: Text.PlainText }
                }
                MouseArea { anchors.fill: parent; onClicked: { root.complete(index); input.forceActiveFocus() } }
            }
        }

        Flow {
            objectName: "imageChips"
            Layout.fillWidth: true
            visible: root.images.length > 0
            spacing: 6
            Repeater {
                model: root.images
                delegate: Rectangle {
                    required property var modelData
                    objectName: "imageChip:" + modelData.name
                    width: chip.implicitWidth + 10
                    height: 56
                    radius: Theme.radius
                    color: Theme.raised
                    border.color: Theme.border
                    RowLayout {
                        id: chip
                        anchors.centerIn: parent
                        spacing: 4
                        Image {
                            source: modelData.url
                            sourceSize.height: 48
                            Layout.preferredHeight: 48
                            Layout.preferredWidth: Math.min(96, Math.max(24, implicitWidth))
                            fillMode: Image.PreserveAspectFit
                            asynchronous: true
                        }
                        ToolButton {
                            text: "×"
                            Accessible.name: "Remove " + modelData.name
                            onClicked: root.removeImage(modelData.path)
                        }
                    }
                }
            }
        }
        Text {
            objectName: "imageProblem"
            Layout.fillWidth: true
            visible: root.imageProblem !== ""
            text: root.imageProblem
            textFormat: Text.PlainText
            wrapMode: Text.Wrap
            color: Theme.error
        }

        ListView {
            id: mentionList
            objectName: "mentionList"
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 180)
            visible: root.mentionChoices.length > 0
            clip: true
            model: root.mentionChoices
            currentIndex: Math.min(root.selectedCommand, root.mentionChoices.length - 1)
            delegate: Rectangle {
                required property var modelData
                required property int index
                width: ListView.view.width
                height: mentionText.implicitHeight + 8
                radius: 4
                color: index === mentionList.currentIndex ? Theme.userBubble : "transparent"
                Text {
                    id: mentionText
                    anchors.verticalCenter: parent.verticalCenter
                    x: 8
                    text: "@" + (modelData.html || "")
                    textFormat: Text.StyledText  // escaped in C++ (FileBrowser), only <b> added
                    font.family: Theme.monoFamily
                    color: Theme.text
                }
                MouseArea { anchors.fill: parent; onClicked: { root.completeMention(index); input.forceActiveFocus() } }
            }
        }

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
                    if (root.mentionChoices.length > 0) {
                        const count = root.mentionChoices.length
                        const at = Math.min(root.selectedCommand, count - 1)
                        if (event.key === Qt.Key_Down || event.key === Qt.Key_Up) {
                            root.selectedCommand = (at + (event.key === Qt.Key_Down ? 1 : count - 1)) % count
                            event.accepted = true
                            return
                        }
                        if ((event.key === Qt.Key_Tab || event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                && !(event.modifiers & Qt.ShiftModifier)) {
                            root.completeMention(at)
                            event.accepted = true
                            return
                        }
                        if (event.key === Qt.Key_Escape) {
                            root.dismissedText = input.text
                            event.accepted = true
                            return
                        }
                    }
                    if (root.suggestions.length > 0) {
                        const count = root.suggestions.length
                        const at = Math.min(root.selectedCommand, count - 1)
                        if (event.key === Qt.Key_Down || event.key === Qt.Key_Up) {
                            root.selectedCommand = (at + (event.key === Qt.Key_Down ? 1 : count - 1)) % count
                            event.accepted = true
                            return
                        }
                        if ((event.key === Qt.Key_Tab || event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                                && !(event.modifiers & Qt.ShiftModifier)) {
                            root.complete(at)
                            event.accepted = true
                            return
                        }
                        if (event.key === Qt.Key_Escape) {
                            root.dismissedText = input.text
                            event.accepted = true
                            return
                        }
                    }
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
                objectName: "attachButton"
                text: "Attach"
                enabled: root.active && root.inspectImage !== null
                onClicked: imageDialog.open()
            }
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
                enabled: root.active && (input.text.trim() !== "" || root.images.length > 0)
                onClicked: root.submit("")
            }
        }
    }

    FileDialog {
        id: imageDialog
        title: "Attach images"
        fileMode: FileDialog.OpenFiles
        nameFilters: ["Images (*.png *.jpg *.jpeg *.gif *.webp)"]
        onAccepted: { for (const file of selectedFiles) root.addImage(file) }
    }
    DropArea {
        anchors.fill: parent
        enabled: root.active && root.inspectImage !== null
        onDropped: (drop) => { for (const url of drop.urls) root.addImage(url) }
    }
}
