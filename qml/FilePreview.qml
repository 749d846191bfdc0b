import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Ava

// One file of the file panel (FileBrowser.preview): code with line numbers,
// Markdown as safe rich text (Ava.Markdown, as answers are), an image, or a
// PDF page the helper process drew; other files are described.
Rectangle {
    id: root
    property var files: null
    readonly property var preview: files ? files.preview : ({})
    readonly property string kind: preview.kind || ""
    property bool source: false
    color: Theme.background

    function sizeText(bytes) {
        if (bytes < 1024) return bytes + " B"
        if (bytes < 1048576) return (bytes / 1024).toFixed(1) + " KiB"
        return (bytes / 1048576).toFixed(1) + " MiB"
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        Rectangle {
            Layout.fillWidth: true
            implicitHeight: bar.implicitHeight + 6
            color: Theme.surface
            visible: root.preview.path !== undefined
            RowLayout {
                id: bar
                anchors.fill: parent
                anchors.margins: 3
                Label {
                    objectName: "previewPath"
                    Layout.fillWidth: true
                    leftPadding: 6
                    text: root.preview.path || ""
                    textFormat: Text.PlainText
                    elide: Text.ElideLeft
                    font.family: Theme.monoFamily
                    font.pixelSize: 12
                    color: Theme.text
                }
                BusyIndicator { running: root.files && root.files.previewBusy; implicitWidth: 18; implicitHeight: 18 }
                ToolButton {
                    visible: root.kind === "pdf"
                    text: "‹"
                    enabled: (root.preview.page || 0) > 0
                    Accessible.name: "Previous page"
                    onClicked: root.files.showPdfPage(root.preview.page - 1)
                }
                Label {
                    objectName: "pdfPageLabel"
                    visible: root.kind === "pdf"
                    text: root.preview.pages ? "page " + (root.preview.page + 1) + " of " + root.preview.pages : ""
                    color: Theme.muted
                }
                ToolButton {
                    visible: root.kind === "pdf"
                    text: "›"
                    enabled: (root.preview.page || 0) + 1 < (root.preview.pages || 0)
                    Accessible.name: "Next page"
                    onClicked: root.files.showPdfPage(root.preview.page + 1)
                }
                ToolButton {
                    visible: root.kind === "text" && root.preview.markdown === true
                    text: root.source ? "Rendered" : "Source"
                    onClicked: root.source = !root.source
                }
                Label { text: root.sizeText(root.preview.size || 0); color: Theme.muted; rightPadding: 6 }
            }
        }
        Label {
            objectName: "previewNote"
            Layout.fillWidth: true
            Layout.margins: 8
            visible: text !== ""
            wrapMode: Text.Wrap
            textFormat: Text.PlainText
            color: root.files && root.files.previewError !== "" ? Theme.error : Theme.muted
            text: !root.files ? ""
                : root.files.previewError !== "" ? root.files.previewError
                : root.preview.truncated ? "Only the start of this file is shown."
                : root.kind === "binary" ? "A binary file (" + root.preview.mediaType + ")."
                : root.preview.path === undefined ? "Choose a file to preview it, or press Ctrl+P to go to one by name."
                : ""
        }
        ScrollView {
            id: scroll
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            visible: root.kind !== "binary" && root.preview.path !== undefined
            contentWidth: Math.max(availableWidth, content.implicitWidth)
            Item {
                id: content
                implicitWidth: root.kind === "text" && !markdownView.visible ? code.implicitWidth : scroll.availableWidth
                implicitHeight: Math.max(code.visible ? code.implicitHeight : 0, markdownView.visible ? markdownView.implicitHeight : 0,
                                         picture.visible ? picture.paintedHeight + 16 : 0)
                // Code: a gutter of line numbers beside the text.
                Row {
                    id: code
                    visible: root.kind === "text" && !(root.preview.markdown === true && !root.source)
                    spacing: 8
                    padding: 6
                    Text {
                        text: {
                            const lines = (root.preview.text || "").split("\n").length
                            let out = []
                            for (let i = 1; i <= lines; ++i) out.push(i)
                            return out.join("\n")
                        }
                        horizontalAlignment: Text.AlignRight
                        font.family: Theme.monoFamily
                        font.pixelSize: 12
                        color: Theme.muted
                    }
                    TextEdit {
                        objectName: "previewText"
                        readOnly: true
                        selectByMouse: true
                        text: code.visible ? (root.preview.text || "") : ""
                        textFormat: TextEdit.PlainText
                        font.family: Theme.monoFamily
                        font.pixelSize: 12
                        color: Theme.text
                        selectionColor: Theme.accent
                    }
                }
                TextEdit {
                    id: markdownView
                    objectName: "previewMarkdown"
                    visible: root.kind === "text" && root.preview.markdown === true && !root.source
                    width: scroll.availableWidth - 20
                    x: 10
                    readOnly: true
                    selectByMouse: true
                    wrapMode: Text.Wrap
                    textFormat: TextEdit.RichText
                    text: visible ? Markdown.toRichText(root.preview.text || "", true) : ""
                    color: Theme.text
                    onLinkActivated: (link) => Markdown.open(link)
                }
                // The page or picture on a frame, so a white page stands out.
                Rectangle {
                    visible: picture.visible && picture.status === Image.Ready
                    x: picture.x + (picture.width - picture.paintedWidth) / 2 - 1
                    y: picture.y - 1
                    width: picture.paintedWidth + 2
                    height: picture.paintedHeight + 2
                    color: "transparent"
                    border.color: Theme.border
                }
                Image {
                    id: picture
                    objectName: "previewImage"
                    visible: (root.kind === "image" || root.kind === "pdf") && source !== ""
                    width: Math.min(scroll.availableWidth - 16, implicitWidth > 0 ? implicitWidth : scroll.availableWidth)
                    x: (scroll.availableWidth - width) / 2
                    y: 8
                    fillMode: Image.PreserveAspectFit
                    asynchronous: true
                    cache: false
                    source: root.preview.image || ""
                }
            }
        }
    }
}
