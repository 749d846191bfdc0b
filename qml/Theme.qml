pragma Singleton
import QtQuick

// Colours and sizes of the workbench. `mode` is "system", "light" or "dark";
// "system" follows the platform palette (Qt 6.4 has no colour-scheme hint,
// so a dark window colour means a dark system theme).
QtObject {
    id: theme
    property string mode: "system"
    property color systemWindow: "#ffffff"
    readonly property bool dark: mode === "dark" || (mode === "system" && systemWindow.hslLightness < 0.5)

    readonly property color background: dark ? "#1e1f22" : "#ffffff"
    readonly property color surface: dark ? "#2b2d31" : "#f4f5f7"
    readonly property color raised: dark ? "#313338" : "#eceef1"
    readonly property color border: dark ? "#3f4147" : "#d6d9de"
    readonly property color text: dark ? "#e6e6e6" : "#1f2328"
    readonly property color muted: dark ? "#9aa0a6" : "#636c76"
    readonly property color accent: dark ? "#6ea8fe" : "#0b63ce"
    readonly property color userBubble: dark ? "#26364d" : "#e7f0fd"
    readonly property color ok: dark ? "#5fcf80" : "#1a7f37"
    readonly property color error: dark ? "#ff7b72" : "#cf222e"
    readonly property color warning: dark ? "#e3b341" : "#9a6700"
    readonly property color codeBackground: dark ? "#16171a" : "#f6f8fa"
    readonly property color diffAdd: dark ? "#1f3d2a" : "#dafbe1"
    readonly property color diffDel: dark ? "#4a2125" : "#ffebe9"
    readonly property color diffHunk: dark ? "#233a5a" : "#ddf4ff"

    readonly property int radius: 6
    readonly property int spacing: 8
    readonly property string monoFamily: "DejaVu Sans Mono"

    function statusColor(status) {
        if (status === "ok") return ok
        if (status === "running") return accent
        if (status === "error") return error
        return warning
    }
}
