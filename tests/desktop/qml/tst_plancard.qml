import QtQuick
import QtTest
import "../../../qml"

Item {
    width: 800
    height: 300

    PlanCard {
        id: card
        width: 780
    }
    SignalSpy { id: approved; target: card; signalName: "approved" }

    TestCase {
        name: "PlanCard"
        when: windowShown

        function init() {
            approved.clear()
            card.currentMode = "accept-edits"
            card.shown = false
            card.shown = true
            waitForItemPolished(findChild(card, "planCardActions"))
        }

        function test_folded_when_no_plan_waits() {
            card.shown = false
            compare(card.implicitHeight, 0)
            verify(!card.enabled)
            card.approve()
            compare(approved.count, 0)
        }

        function test_starts_in_the_current_mode_and_approves_by_click() {
            verify(card.height > 40)
            compare(findChild(card, "planModeChoice").currentIndex, 1)
            mouseClick(findChild(card, "approvePlanButton"))
            compare(approved.count, 1)
            compare(approved.signalArguments[0][0], "accept-edits")
        }

        function test_plan_mode_is_never_offered() {
            card.currentMode = "plan"
            card.shown = false
            card.shown = true
            compare(findChild(card, "planModeChoice").currentIndex, 0)
            findChild(card, "planModeChoice").currentIndex = 2
            card.approve()
            compare(approved.signalArguments[0][0], "auto")
        }
    }
}
