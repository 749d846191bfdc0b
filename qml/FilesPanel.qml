import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Ava

// The file panel (FileBrowser, file_browser.hpp): the selected project's
// tree on the selected machine, without what Git ignores, and a preview of
// the chosen file: code with line numbers, Markdown rendered safely, images,
// PDF pages drawn by the helper process. Ctrl+P goes to a file by name.
Rectangle {
    id: root
    property var files: null
    property string projectName: ""
    signal closeRequested()
    color: Theme.background

    readonly property var preview: files ? files.preview : ({})
    function openQuick() { quick.open() }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        Rectangle {
            Layout.fillWidth: true
            implicitHeight: head.implicitHeight + 8
            color: Theme.surface
            RowLayout {
                id: head
                anchors.fill: parent
                anchors.margins: 4
                Label {
                    Layout.fillWidth: true
                    leftPadding: 4
                    text: root.projectName
                    textFormat: Text.PlainText
                    font.bold: true
                    elide: Text.ElideRight
                    color: Theme.text
                }
                ToolButton { objectName: "goToFileButton"; text: "Go to file"; onClicked: root.openQuick() }
                ToolButton {
                    objectName: "hideFilesButton"
                    text: "×"
                    Accessible.name: "Hide files"
                    onClicked: root.closeRequested()
                }
            }
        }
        SplitView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            orientation: Qt.Vertical
            Item {
                SplitView.preferredHeight: root.height * 0.4
                SplitView.minimumHeight: 80
                Label {
                    visible: root.files !== null && root.files.error !== ""
                    anchors.fill: parent
                    anchors.margins: 8
                    text: root.files ? root.files.error : ""
                    textFormat: Text.PlainText
                    wrapMode: Text.Wrap
                    color: Theme.error
                }
                ListView {
                    id: tree
                    objectName: "fileTree"
                    anchors.fill: parent
                    clip: true
                    visible: root.files !== null && root.files.error === ""
                    model: root.files ? root.files.rows : null
                    ScrollBar.vertical: ScrollBar {}
                    delegate: ItemDelegate {
                        required property string path
                        required property string name
                        required property string kind
                        required property int depth
                        required property bool expanded
                        required property bool link
                        objectName: "fileRow:" + path
                        width: tree.width
                        height: 24
                        leftPadding: 6 + depth * 14
                        enabled: kind === "dir" || kind === "file"
                        highlighted: root.files.selected === path
                        contentItem: RowLayout {
                            spacing: 4
                            Label {
                                Layout.preferredWidth: 12
                                text: kind === "dir" ? (expanded ? "▾" : "▸") : ""
                                color: Theme.muted
                                font.pixelSize: 10
                            }
                            Label {
                                Layout.fillWidth: true
                                text: name + (link ? "  ↗" : "")
                                textFormat: Text.PlainText
                                elide: Text.ElideRight
                                font.bold: kind === "dir"
                                color: kind === "dir" || kind === "file" ? Theme.text : Theme.muted
                            }
                        }
                        onClicked: kind === "dir" ? root.files.toggle(path) : root.files.open(path)
                    }
                }
            }
            FilePreview {
                SplitView.fillHeight: true
                files: root.files
            }
        }
    }

    // Go to file: the server ranks the project's files as the name is typed.
    Popup {
        id: quick
        objectName: "quickOpen"
        parent: Overlay.overlay
        x: (parent.width - width) / 2
        y: parent.height * 0.12
        width: Math.min(620, parent.width - 40)
        height: Math.min(420, parent.height * 0.6)
        modal: true
        focus: true
        onOpened: { query.text = ""; query.forceActiveFocus(); root.files.search("") }
        function choose(path) { quick.close(); root.files.open(path) }
        ColumnLayout {
            anchors.fill: parent
            TextField {
                id: query
                objectName: "quickOpenQuery"
                Layout.fillWidth: true
                placeholderText: "Go to a file in " + root.projectName + "…"
                onTextChanged: root.files.search(text)
                Keys.onDownPressed: matches.currentIndex = Math.min(matches.currentIndex + 1, matches.count - 1)
                Keys.onUpPressed: matches.currentIndex = Math.max(matches.currentIndex - 1, 0)
                onAccepted: if (matches.currentIndex >= 0 && matches.count > 0) quick.choose(root.files.matches[matches.currentIndex].path)
            }
            ListView {
                id: matches
                objectName: "quickOpenMatches"
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                model: root.files ? root.files.matches : []
                onCountChanged: currentIndex = count > 0 ? 0 : -1
                delegate: ItemDelegate {
                    required property var modelData
                    required property int index
                    width: matches.width
                    highlighted: ListView.isCurrentItem
                    contentItem: Text {
                        text: modelData.html
                        textFormat: Text.StyledText
                        font.family: Theme.monoFamily
                        font.pixelSize: 12
                        color: Theme.text
                        elide: Text.ElideLeft
                    }
                    onClicked: quick.choose(modelData.path)
                }
            }
        }
    }
}
