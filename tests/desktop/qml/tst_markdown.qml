import QtQuick
import QtTest
import Ava
import "../../../qml"

// Answers from the model: raw HTML is text, images are links (never loaded),
// and only http, https and mailto links are opened. Text that comes from the
// backend (titles, tool labels, notices) is never read as rich text.
Item {
    width: 700
    height: 900

    MessageItem { id: answer; width: 600; role: "assistant"; text: "" }
    ToolCard { id: card; y: 300; width: 600; toolName: "bash"; title: "<b>bold</b> <img src=\"http://127.0.0.1:9/t.png\">"; status: "ok" }
    NoticeItem { id: notice; y: 400; width: 600; text: "<i>provider</i> said <img src=\"http://127.0.0.1:9/n.png\">" }

    readonly property var refused: [
        "javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
        "\u0001https://example.com/", "https://example.com/\n", "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>", "file:///etc/passwd", "ftp://example.com/",
        "smb://host/share", "/relative", "docs/a.md", "#anchor", "", "http://", "https:///path",
        "mailto:", "qrc:/qml/Main.qml", "x-ava:open"
    ]
    readonly property var allowed: [
        "https://example.com/a?b=1#c", "http://127.0.0.1:8080/", "HTTPS://EXAMPLE.COM/",
        "mailto:ava@example.com"
    ]
    // Each must come out without an <img> (nothing to load) and with no
    // tag of the input surviving as markup.
    readonly property var hostile: [
        "![chart](http://127.0.0.1:9/leak.png?d=secret)",
        "![x][r]\n\n[r]: http://127.0.0.1:9/ref.png",
        "<img src=\"http://127.0.0.1:9/raw.png\">",
        "text <img src=http://127.0.0.1:9/inline.png> more",
        "<div>\n<img src=\"http://127.0.0.1:9/block.png\">\n</div>",
        "<p style=\"background-image:url(http://127.0.0.1:9/bg.png)\">x</p>",
        "&lt;img src=\"http://127.0.0.1:9/entity.png\"&gt;",
        "<table background=\"http://127.0.0.1:9/t.png\"><tr><td>x</td></tr></table>",
        "[![nested](http://127.0.0.1:9/n.png)](https://example.com/)",
        "- item ![a](http://127.0.0.1:9/li.png)\n- <img src=x>",
        "| a | b |\n|---|---|\n| ![c](http://127.0.0.1:9/cell.png) | <img src=y> |"
    ]

    TestCase {
        name: "Markdown"
        when: windowShown

        function shown(markdown) {
            answer.text = markdown
            const body = findChild(answer, "messageText")
            return body.getText(0, body.length)
        }
        // The link under the character at index (as a click there would activate it).
        function linkAtChar(index) {
            const body = findChild(answer, "messageText")
            const r = body.positionToRectangle(index)
            return body.linkAt(r.x + 2, r.y + r.height / 2)
        }

        function test_only_http_https_and_mailto_are_openable() {
            for (const link of refused) verify(!Markdown.isOpenable(link), JSON.stringify(link))
            for (const link of allowed) verify(Markdown.isOpenable(link), link)
        }

        function test_clicking_a_refused_link_opens_nothing() {
            // Only refused links here: an allowed one would start a browser.
            for (const link of refused) compare(answer.openLink(link), false, JSON.stringify(link))
        }

        function test_safe_links_stay_links() {
            compare(shown("see [the docs](https://example.com/docs) now"), "see the docs now")
            compare(linkAtChar(5), "https://example.com/docs")
            compare(linkAtChar(1), "")
            shown("[mail](mailto:ava@example.com)")
            compare(linkAtChar(1), "mailto:ava@example.com")
        }

        function test_unsafe_links_are_plain_text() {
            const inputs = ["[click](javascript:alert(1))", "[click](<java\tscript:alert(1)>)",
                            "[click](file:///etc/passwd)", "[click](x-ava:open)", "[click](docs/a.md)",
                            "<javascript:alert(1)>"]
            for (const input of inputs) {
                const text = shown(input)
                verify(text.indexOf("click") >= 0 || text.indexOf("javascript") >= 0, text)
                compare(linkAtChar(1), "", input)
                verify(Markdown.toRichText(input).indexOf("href") < 0, input)
            }
        }

        function test_images_are_links_to_their_address() {
            compare(shown("![chart](http://127.0.0.1:9/leak.png)"), "[image: chart] http://127.0.0.1:9/leak.png")
            compare(linkAtChar(17), "http://127.0.0.1:9/leak.png")
            compare(linkAtChar(2), "")
            compare(shown("![x](javascript:alert(1))"), "[image: x] javascript:alert(1)")
            compare(linkAtChar(12), "")
        }

        function test_raw_html_is_text() {
            compare(shown("<img src=\"http://127.0.0.1:9/raw.png\">"), "<img src=\"http://127.0.0.1:9/raw.png\">")
            compare(shown("a <b>b</b> <script>alert(1)</script>"), "a <b>b</b> <script>alert(1)</script>")
        }

        function test_nothing_hostile_survives_as_markup() {
            for (const input of hostile) {
                for (const cached of [true, false]) {
                    const html = Markdown.toRichText(input, cached)
                    verify(!/<img/i.test(html), input + " -> " + html)
                    verify(!/<(div|script|table background|p style="background)/i.test(html), input + " -> " + html)
                }
                shown(input) // and the view takes it
            }
        }

        function test_backend_text_is_never_rich_text() {
            const header = findChild(card, "toolToggle").contentItem
            compare(header.textFormat, Text.PlainText)
            verify(header.text.indexOf("<b>bold</b>") >= 0)
            compare(notice.textFormat, Text.PlainText)
        }

        function test_code_keeps_its_angle_brackets() {
            // (getText separates paragraphs with U+2029)
            compare(shown("`std::vector<int>` and\n\n```cpp\n#include <vector>\n```"), "std::vector<int> and\u2029#include <vector>")
        }
    }
}
