import QtQuick
import QtTest
import "../../../qml"

Item {
    width: 600
    height: 600

    ThinkingBlock { id: thinking; width: 500; text: "considering the options" }
    ThinkingBlock { id: liveThinking; y: 100; width: 500; text: "streaming"; live: true }
    MessageItem { id: answer; y: 200; width: 500; role: "assistant"; text: "Use **bold** and `code`" }
    MessageItem { id: question; y: 300; width: 500; role: "user"; text: "keep **stars**"; inputKind: "steer"; claimed: false }
    MessageItem { id: refused; y: 400; width: 500; role: "user"; text: "the secret is 42"; blocked: "no <b>secrets</b>" }

    TestCase {
        name: "Blocks"
        when: windowShown

        function test_thinking_is_collapsed_until_clicked() {
            verify(!thinking.expanded)
            verify(!findChild(thinking, "thinkingText").visible)
            mouseClick(findChild(thinking, "thinkingToggle"))
            verify(thinking.expanded)
            verify(findChild(thinking, "thinkingText").visible)
            mouseClick(findChild(thinking, "thinkingToggle"))
            verify(!findChild(thinking, "thinkingText").visible)
        }

        function test_live_thinking_is_open() {
            verify(findChild(liveThinking, "thinkingText").visible)
        }

        function test_answers_render_markdown_and_user_text_stays_plain() {
            const rendered = findChild(answer, "messageText")
            verify(rendered.visible)
            compare(rendered.textFormat, TextEdit.RichText)
            compare(rendered.getText(0, rendered.length), "Use bold and code")
            verify(!findChild(answer, "typedText").visible)
            const typed = findChild(question, "typedText")
            verify(typed.visible)
            compare(typed.textFormat, TextEdit.PlainText)
            compare(typed.getText(0, typed.length), "keep **stars**")
            verify(!findChild(question, "messageText").visible)
            compare(findChild(question, "messageText").length, 0)
        }

        function test_a_blocked_prompt_shows_the_hooks_reason_as_plain_text() {
            verify(!findChild(question, "blockedReason").visible)
            const reason = findChild(refused, "blockedReason")
            verify(reason.visible)
            compare(reason.textFormat, Text.PlainText)
            compare(reason.text, "A hook kept this from the model: no <b>secrets</b>")
            verify(findChild(refused, "typedText").font.strikeout)
        }
    }
}
