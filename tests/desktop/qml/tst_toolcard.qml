import QtQuick
import QtTest
import "../../../qml"

Item {
    width: 640
    height: 900

    ToolCard {
        id: bash
        width: 600
        toolName: "bash"
        title: "bash"
        status: "ok"
        command: "echo hi"
        exitInfo: "exit 0 · 3 ms"
        output: "hi\n"
    }
    ToolCard {
        id: edit
        y: 300
        width: 600
        toolName: "edit"
        title: "edit /p/a.txt"
        path: "/p/a.txt"
        status: "ok"
        diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old line\n+new line\n"
        output: "Edited /p/a.txt"
    }
    ToolCard {
        id: failed
        y: 600
        width: 600
        toolName: "bash"
        title: "bash"
        status: "error"
        command: "false"
        exitInfo: "exit 1"
        exitBad: true
    }

    ToolCard {
        id: task
        y: 760
        width: 600
        toolName: "task"
        title: "task: look around"
        status: "ok"
        output: "found it"
        subagentSession: "child-1"
        subagentAgent: "explore"
    }
    SignalSpy { id: opened; target: task; signalName: "openSubagent" }

    TestCase {
        name: "ToolCard"
        when: windowShown

        function diffRows(card) {
            const view = findChild(card, "diffView")
            const rows = []
            for (let i = 0; i < view.children.length; ++i)
                if (view.children[i].kind !== undefined) rows.push(view.children[i])
            return rows
        }

        function test_bash_card_shows_command_exit_and_output() {
            compare(findChild(bash, "commandText").text, "$ echo hi")
            verify(findChild(bash, "commandText").visible)
            compare(findChild(bash, "exitText").text, "exit 0 · 3 ms")
            compare(findChild(bash, "outputText").text, "hi\n")
            verify(!findChild(bash, "diffView").visible)
            compare(bash.statusLabel, "done")
        }

        function test_header_click_collapses_and_expands_the_body() {
            const body = findChild(bash, "toolBody")
            verify(body.visible)
            const collapsedHeight = bash.height
            mouseClick(findChild(bash, "toolToggle"))
            verify(!body.visible)
            tryVerify(() => bash.height < collapsedHeight)
            mouseClick(findChild(bash, "toolToggle"))
            verify(body.visible)
        }

        function test_edit_card_shows_its_diff_coloured_by_line() {
            verify(findChild(edit, "diffView").visible)
            verify(!findChild(edit, "commandText").visible)
            compare(findChild(edit, "pathText").text, "/p/a.txt")
            const rows = diffRows(edit)
            compare(rows.length, 5)
            compare(rows[0].kind, "file")
            compare(rows[2].kind, "hunk")
            compare(rows[3].kind, "del")
            compare(rows[4].kind, "add")
            compare(rows[4].color, Theme.diffAdd)
            compare(rows[3].color, Theme.diffDel)
        }

        function test_failed_call_is_marked() {
            compare(failed.statusLabel, "failed")
            compare(failed.border.color, Theme.error)
            compare(findChild(failed, "exitText").color, Theme.error)
            compare(findChild(bash, "exitText").color, Theme.muted)
        }
    
        function test_task_card_opens_its_subagent_log() {
            verify(!findChild(bash, "openSubagentButton").visible)
            const button = findChild(task, "openSubagentButton")
            verify(button.visible)
            mouseClick(button)
            compare(opened.count, 1)
            compare(opened.signalArguments[0][0], "child-1")
            compare(opened.signalArguments[0][1], "explore")
        }
    }
}
