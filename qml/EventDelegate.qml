import QtQuick

// One row of a conversation's list (ConversationModel's roles): a message, a
// built-in's answer, thinking, a notice or a tool card. The conversation and
// a subagent's log both use it.
Loader {
    id: row
    required property string kind
    required property string text
    required property string inputKind
    required property bool claimed
    required property string blocked
    required property bool redacted
    required property string toolName
    required property string title
    required property string status
    required property string arguments
    required property string command
    required property string path
    required property string diff
    required property string exitInfo
    required property bool exitBad
    required property string output
    required property string level
    required property bool plan
    required property string subagentSession
    required property string subagentAgent
    signal openSubagent(string sessionId, string agent)

    sourceComponent: kind === "tool" ? toolComponent : kind === "thinking" ? thinkingComponent
                   : kind === "notice" ? noticeComponent : messageComponent
    Component {
        id: messageComponent
        MessageItem {
            role: row.kind; text: row.text; inputKind: row.inputKind; claimed: row.claimed
            blocked: row.blocked; plan: row.plan; output: row.output
        }
    }
    Component {
        id: thinkingComponent
        ThinkingBlock { text: row.text; redacted: row.redacted }
    }
    Component {
        id: noticeComponent
        NoticeItem { text: row.text; level: row.level }
    }
    Component {
        id: toolComponent
        ToolCard {
            toolName: row.toolName; title: row.title; status: row.status; arguments: row.arguments
            command: row.command; path: row.path; diff: row.diff; exitInfo: row.exitInfo
            exitBad: row.exitBad; output: row.output
            subagentSession: row.subagentSession; subagentAgent: row.subagentAgent
            onOpenSubagent: (sessionId, agent) => row.openSubagent(sessionId, agent)
        }
    }
}
