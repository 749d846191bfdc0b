import QtQuick
import QtTest
import "../../../qml"

Item {
    width: 800
    height: 300

    Composer {
        id: composer
        width: 780
        active: true
        driverState: "idle"
        modelChoices: ["anthropic/claude-sonnet-4-5", "openai/gpt-5"]
        inspectImage: (file) => file.endsWith(".png")
            ? { ok: true, path: file, name: file.slice(file.lastIndexOf("/") + 1), size: 283, mediaType: "image/png",
                url: Qt.resolvedUrl("data/page.png") }
            : { ok: false, error: file + " is not a png, jpeg, gif or webp image." }
        commands: [{ name: "review", description: "Review a file", argumentHint: "FILE", scope: "project" },
                   { name: "release", description: "Cut a release", argumentHint: "", scope: "user" },
                   { name: "frontend:test", description: "Run the UI tests", argumentHint: "", scope: "project" }]
    }
    SignalSpy { id: submitted; target: composer; signalName: "submitted" }
    SignalSpy { id: mentioned; target: composer; signalName: "mentionQuery" }
    SignalSpy { id: paused; target: composer; signalName: "pauseRequested" }
    SignalSpy { id: resumed; target: composer; signalName: "resumeRequested" }
    SignalSpy { id: aborted; target: composer; signalName: "abortRequested" }

    TestCase {
        name: "Composer"
        when: windowShown

        function init() {
            submitted.clear(); paused.clear(); resumed.clear(); aborted.clear()
            composer.text = ""
            composer.dismissedText = ""
            composer.selectedCommand = 0
            composer.driverState = "idle"
            composer.active = true
            findChild(composer, "kindBox").currentIndex = 0
            composer.focusInput()
        }

        function test_slash_commands_complete_from_the_keyboard() {
            keyClick("/"); keyClick(Qt.Key_R); keyClick(Qt.Key_E)
            compare(composer.suggestions.length, 2)
            verify(findChild(composer, "commandList").visible)
            keyClick(Qt.Key_Down)
            keyClick(Qt.Key_Return)
            compare(composer.text, "/release ")
            compare(submitted.count, 0)
            compare(composer.suggestions.length, 0)
            keyClick(Qt.Key_1)
            keyClick(Qt.Key_Return)
            compare(submitted.count, 1)
            compare(submitted.signalArguments[0][0], "/release 1")
        }

        function test_escape_closes_the_command_list() {
            keyClick("/")
            compare(composer.suggestions.length, 3)
            keyClick(Qt.Key_Escape)
            compare(composer.suggestions.length, 0)
            verify(!findChild(composer, "commandList").visible)
            keyClick(Qt.Key_F)
            compare(composer.suggestions.length, 1)
            keyClick(Qt.Key_Tab)
            compare(composer.text, "/frontend:test ")
        }

        function test_enter_sends_a_followup_and_clears() {
            keyClick(Qt.Key_H); keyClick(Qt.Key_I)
            keyClick(Qt.Key_Return)
            compare(submitted.count, 1)
            compare(submitted.signalArguments[0][0], "hi")
            compare(submitted.signalArguments[0][1], "followup")
            compare(composer.text, "")
        }

        function test_ctrl_enter_steers_and_shift_enter_is_a_new_line() {
            composer.text = "first"
            findChild(composer, "composerInput").cursorPosition = 5
            keyClick(Qt.Key_Return, Qt.ShiftModifier)
            compare(submitted.count, 0)
            compare(composer.text, "first\n")
            keyClick(Qt.Key_Return, Qt.ControlModifier)
            compare(submitted.count, 1)
            compare(submitted.signalArguments[0][1], "steer")
        }

        function test_nothing_is_sent_when_empty_or_inactive() {
            keyClick(Qt.Key_Return)
            compare(submitted.count, 0)
            verify(!findChild(composer, "sendButton").enabled)
            composer.text = "hello"
            composer.active = false
            verify(!composer.submit(""))
            compare(submitted.count, 0)
        }

        function test_send_button_uses_the_chosen_kind() {
            composer.text = "go"
            findChild(composer, "kindBox").currentIndex = 1
            compare(findChild(composer, "sendButton").text, "Steer")
            mouseClick(findChild(composer, "sendButton"))
            compare(submitted.count, 1)
            compare(submitted.signalArguments[0][1], "steer")
        }

        function test_turn_controls_follow_the_driver_state() {
            const pause = findChild(composer, "pauseButton")
            const abort = findChild(composer, "abortButton")
            verify(!pause.enabled)
            verify(!abort.enabled)
            composer.driverState = "running"
            verify(pause.enabled)
            compare(pause.text, "Pause")
            mouseClick(pause)
            compare(paused.count, 1)
            composer.driverState = "paused"
            compare(pause.text, "Resume")
            mouseClick(pause)
            compare(resumed.count, 1)
            mouseClick(abort)
            compare(aborted.count, 1)
        }
    
        function test_images_are_checked_shown_and_sent() {
            composer.images = []
            verify(!composer.addImage("/tmp/notes.txt"))
            compare(findChild(composer, "imageProblem").text, "/tmp/notes.txt is not a png, jpeg, gif or webp image.")
            verify(composer.addImage("/tmp/shot.png"))
            verify(composer.addImage("/tmp/shot.png"))  // once only
            verify(composer.addImage("/tmp/other.png"))
            compare(composer.images.length, 2)
            compare(findChild(composer, "imageProblem").visible, false)
            verify(findChild(composer, "imageChip:shot.png"))
            composer.removeImage("/tmp/other.png")
            compare(composer.images.length, 1)
            // An image alone can be sent.
            verify(findChild(composer, "sendButton").enabled)
            mouseClick(findChild(composer, "sendButton"))
            compare(submitted.count, 1)
            compare(submitted.signalArguments[0][0], "")
            compare(submitted.signalArguments[0][2], ["/tmp/shot.png"])
            compare(composer.images.length, 0)
        }
    
        function test_at_mentions_insert_a_file_path() {
            mentioned.clear()
            composer.fileMatches = []
            const input = findChild(composer, "composerInput")
            input.forceActiveFocus()
            keyClick(Qt.Key_L); keyClick(Qt.Key_O); keyClick(Qt.Key_O); keyClick(Qt.Key_K); keyClick(Qt.Key_Space)
            keyClick(Qt.Key_At, Qt.ShiftModifier)
            keyClick(Qt.Key_M); keyClick(Qt.Key_A)
            compare(composer.text, "look @ma")
            compare(mentioned.signalArguments[mentioned.count - 1][0], "ma")
            // The answer to the query comes back from the server.
            composer.fileMatches = [{ path: "src/main.cpp", html: "src/<b>ma</b>in.cpp" },
                                    { path: "docs/manual.md", html: "docs/<b>ma</b>nual.md" }]
            tryCompare(findChild(composer, "mentionList"), "visible", true)
            keyClick(Qt.Key_Down)
            keyClick(Qt.Key_Return)
            compare(composer.text, "look @docs/manual.md ")
            compare(submitted.count, 0)  // Enter chose, it did not send
            compare(findChild(composer, "mentionList").visible, false)
            // An e-mail address is not a mention.
            composer.text = ""
            keyClick(Qt.Key_A); keyClick(Qt.Key_At, Qt.ShiftModifier); keyClick(Qt.Key_B)
            compare(composer.mention, null)
            composer.fileMatches = []
        }
    }
}
