import QtQuick

// A line in the conversation about the turn (aborted, paused, errors).
Text {
    property string level: "info"
    textFormat: Text.PlainText
    color: level === "error" ? Theme.error : level === "interrupted" ? Theme.warning : Theme.muted
    font.italic: true
    wrapMode: Text.Wrap
    horizontalAlignment: Text.AlignHCenter
}
