import QtQuick
import QtTest
import "../../../qml"

Item {
    width: 800
    height: 400

    ApprovalCard {
        id: card
        width: 780
    }
    SignalSpy { id: decided; target: card; signalName: "decided" }

    readonly property var bashApproval: ({
        approvalId: "ap-1", callId: "c1", toolName: "bash", title: "bash",
        reason: "execute calls need approval in ask mode", rule: "",
        suggestedRules: ["bash(npm test:*)", "bash(npm:*)"], preview: "npm test"
    })

    TestCase {
        name: "ApprovalCard"
        when: windowShown

        function init() {
            decided.clear()
            card.approval = bashApproval
            card.waiting = 1
            card.forceActiveFocus()
            waitForItemPolished(findChild(card, "approvalActions"))
        }

        function argsOf(i) { return Array.prototype.slice.call(decided.signalArguments[i]) }

        function test_hidden_when_nothing_waits() {
            card.approval = ({})
            verify(!card.shown)
            verify(!card.enabled)
            compare(card.implicitHeight, 0)
            keyClick(Qt.Key_Y)
            compare(decided.count, 0)
        }

        function test_shows_the_command_and_why() {
            verify(card.shown && card.height > 100)
            compare(findChild(card, "approvalTitle").text, "Run this command?")
            compare(findChild(card, "approvalPreview").text, "$ npm test")
            compare(findChild(card, "approvalReason").text, "execute calls need approval in ask mode")
        }

        function test_allow_once_by_click_and_by_key() {
            mouseClick(findChild(card, "allowOnceButton"))
            compare(decided.count, 1)
            compare(argsOf(0), ["ap-1", "allow", "once", "", ""])
            keyClick(Qt.Key_Y)
            compare(decided.count, 2)
        }

        function test_always_allow_sends_the_chosen_rule() {
            const choice = findChild(card, "ruleChoice")
            choice.currentIndex = 1
            keyClick(Qt.Key_A)
            compare(decided.count, 1)
            compare(argsOf(0), ["ap-1", "allow", "project", "bash(npm:*)", ""])
        }

        function test_deny_with_a_note_and_keys_typed_in_it_stay_there() {
            keyClick(Qt.Key_N)
            verify(card.denying)
            const note = findChild(card, "denyNote")
            verify(note.activeFocus)
            keyClick(Qt.Key_Y)  // typed into the note: no decision
            compare(decided.count, 0)
            note.text = "use make"
            mouseClick(findChild(card, "confirmDenyButton"))
            compare(decided.count, 1)
            compare(argsOf(0), ["ap-1", "deny", "once", "", "use make"])
        }

        function test_another_request_resets_the_card() {
            card.denying = true
            card.approval = ({ approvalId: "ap-2", toolName: "edit", title: "edit src/a.cpp",
                               reason: "edit calls need approval", rule: "", suggestedRules: [],
                               preview: "-old\n+new" })
            verify(!card.denying)
            compare(findChild(card, "approvalTitle").text, "edit src/a.cpp?")
            verify(!findChild(card, "allowAlwaysButton").enabled)
            keyClick(Qt.Key_A)  // no rule to grant: nothing happens
            compare(decided.count, 0)
        }
    }
}
