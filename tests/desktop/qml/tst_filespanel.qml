import QtQuick
import QtQuick.Controls
import QtTest
import "../../../qml"

// The file panel against a stand-in for FileBrowser: the tree's rows open
// folders and files, each kind of preview shows (code with line numbers,
// Markdown rendered, an image or a drawn PDF page with its page buttons),
// and quick open searches and opens.
Item {
    width: 900
    height: 800

    ListModel {
        id: rows
        ListElement { path: "src"; name: "src"; kind: "dir"; depth: 0; expanded: true; link: false }
        ListElement { path: "src/app.ts"; name: "app.ts"; kind: "file"; depth: 1; expanded: false; link: false }
        ListElement { path: "etc"; name: "etc"; kind: "link"; depth: 0; expanded: false; link: true }
        ListElement { path: "notes.md"; name: "notes.md"; kind: "file"; depth: 0; expanded: false; link: false }
    }

    QtObject {
        id: fake
        property var rows: rows
        property string error: ""
        property bool ignoresApplied: true
        property string selected: ""
        property var preview: ({})
        property string previewError: ""
        property bool previewBusy: false
        property var matches: []
        property bool watching: true
        property var calls: []
        function toggle(path) { calls.push("toggle " + path) }
        function open(path) { calls.push("open " + path); selected = path }
        function search(query) { calls.push("search " + query) }
        function showPdfPage(page) { calls.push("page " + page) }
    }

    FilesPanel {
        id: panel
        anchors.fill: parent
        files: fake
        projectName: "shop"
    }

    TestCase {
        name: "FilesPanel"
        when: windowShown

        function init() {
            fake.calls = []
            fake.preview = {}
            fake.previewError = ""
            fake.selected = ""
        }

        function test_rows_open_folders_and_files() {
            const folder = findChild(panel, "fileRow:src")
            verify(folder)
            mouseClick(folder)
            mouseClick(findChild(panel, "fileRow:src/app.ts"))
            compare(fake.calls, ["toggle src", "open src/app.ts"])
            compare(findChild(panel, "fileRow:etc").enabled, false)  // a link out of the project
            compare(findChild(panel, "previewNote").text,
                    "Choose a file to preview it, or press Ctrl+P to go to one by name.")
        }

        function test_code_shows_with_line_numbers() {
            fake.preview = { path: "src/app.ts", kind: "text", text: "one\ntwo\nthree\n", size: 14, markdown: false }
            const text = findChild(panel, "previewText")
            compare(text.text, "one\ntwo\nthree\n")
            verify(text.visible)
            compare(findChild(panel, "previewMarkdown").visible, false)
            compare(findChild(panel, "previewPath").text, "src/app.ts")
        }

        function test_markdown_is_rendered_without_raw_html() {
            fake.preview = { path: "notes.md", kind: "text", text: "# Title\n\n<img src=x onerror=alert(1)>", size: 20, markdown: true }
            const view = findChild(panel, "previewMarkdown")
            verify(view.visible)
            verify(view.text.indexOf("Title") >= 0)
            verify(view.text.indexOf("<img") < 0)
        }

        function test_a_pdf_page_shows_with_its_page_buttons() {
            fake.preview = { path: "doc.pdf", kind: "pdf", size: 900, page: 0, pages: 3,
                             image: Qt.resolvedUrl("data/page.png") }
            const image = findChild(panel, "previewImage")
            tryCompare(image, "status", Image.Ready)
            verify(image.visible)
            verify(image.paintedHeight > 0)
            const shown = image.mapToItem(panel, 0, 0)
            verify(shown.y < panel.height && shown.y + image.paintedHeight > 0, "the page is on screen")
            compare(findChild(panel, "pdfPageLabel").text, "page 1 of 3")
        }

        function test_quick_open_searches_and_opens() {
            panel.openQuick()
            const popup = findChild(panel, "quickOpen")
            tryCompare(popup, "opened", true)
            fake.matches = [{ path: "src/app.ts", positions: [4, 5], html: "src/<b>ap</b>p.ts" }]
            keyClick(Qt.Key_A)
            keyClick(Qt.Key_P)
            verify(fake.calls.indexOf("search ap") >= 0)
            keyClick(Qt.Key_Return)
            tryCompare(popup, "opened", false)
            verify(fake.calls.indexOf("open src/app.ts") >= 0)
        }
    }
}
