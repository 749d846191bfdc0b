import QtQuick
import QtTest
import "../../../qml"

// The automations page against a stand-in for the Workbench: the form asks
// for the schedule's next runs, sends what was typed, and the list's buttons
// reach the workbench.
Item {
    width: 900
    height: 700

    QtObject {
        id: fake
        property var projects: ({ indexOf: function(id) { return -1 }, get: function(i) { return ({}) } })
        property string projectId: ""
        property var automations: ListModel {}
        property var automationHistory: []
        property var schedulePreview: ["2026-12-07 09:00 UTC", "2026-12-08 09:00 UTC"]
        property string schedulePreviewError: ""
        property var added: null
        property var previews: []
        property var ran: []
        function loadAutomations() {}
        function previewSchedule(kind, text, zone) { previews.push([kind, text, zone]) }
        function addAutomation(fields) { added = fields }
        function runAutomation(id) { ran.push(id) }
        function setAutomationEnabled(id, on) {}
        function removeAutomation(id) {}
        function loadAutomationHistory(id) {}
    }

    Component.onCompleted: fake.automations.append({
        id: "a1", name: "nightly", scheduleKind: "cron", schedule: "0 2 * * *",
        timeZone: "UTC", enabled: true, nextRunMs: 1900000000000, lastState: "failed",
        lastError: "aborted at the time limit", lastConversation: "c1", prompt: "run the tests"
    })

    AutomationsPage {
        id: page
        anchors.fill: parent
        workbench: fake
    }

    TestCase {
        name: "AutomationsPage"
        when: windowShown

        function test_lists_an_automation_with_its_last_state() {
            const list = findChild(page, "automationList")
            tryVerify(() => list.count === 1)
            const last = findChild(list, "lastState")
            verify(last.text.indexOf("failed") >= 0)
            compare(last.color, Theme.error)
            mouseClick(findChild(list, "runNowButton"))
            compare(fake.ran.length, 1)
            compare(fake.ran[0], "a1")
        }

        function test_the_form_previews_the_schedule_and_sends_the_fields() {
            mouseClick(findChild(page, "newAutomationButton"))
            verify(page.adding)
            const schedule = findChild(page, "automationSchedule")
            schedule.forceActiveFocus()
            schedule.selectAll()
            keyClick(Qt.Key_Asterisk)
            tryVerify(() => fake.previews.length > 0 && fake.previews[fake.previews.length - 1][1] === "*")
            compare(findChild(page, "schedulePreview").text, "2026-12-07 09:00 UTC\n2026-12-08 09:00 UTC")
            findChild(page, "automationName").text = "tests"
            findChild(page, "automationProject").text = "/p"
            findChild(page, "automationPrompt").text = "run the tests"
            schedule.text = "*/30 * * * *"
            mouseClick(findChild(page, "addAutomationButton"))
            verify(fake.added !== null)
            compare(fake.added.name, "tests")
            compare(fake.added.project, "/p")
            compare(fake.added.cron, "*/30 * * * *")
            compare(fake.added.overlap, "skip")
            verify(!page.adding)
        }
    }
}
