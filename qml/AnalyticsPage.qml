import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Analytics (the web UI's page, docs/analytics.md): what the sessions spent
// and did, from the backend's index. Filters by project, model and period;
// totals, tokens and cost per day, and tables by project, model and tool.
Rectangle {
    id: root
    property var workbench
    property string project: ""
    property string model: ""
    property string range: "30"       // days back from today, or "all"
    property var now: new Date()      // today, replaceable by tests
    property var seenModels: []       // every model an unfiltered answer named
    signal closeRequested()
    color: Theme.background

    readonly property var summary: workbench && workbench.analytics ? workbench.analytics : ({})
    readonly property var series: dailySeries(summary.byDay || [])

    function isoDay(ms) { return new Date(ms).toISOString().slice(0, 10) }
    function today() { return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) }
    function fromDay() { return range === "all" ? "" : isoDay(today() - (Number(range) - 1) * 86400000) }
    function query() {
        const q = {}
        if (project !== "") q.project = project
        if (model !== "") q.model = model
        const from = fromDay()
        if (from !== "") q.from = from
        return q
    }
    function reload() { if (workbench) workbench.loadAnalytics(query()) }

    // Every day of the period (or from the first day with data), zeros where
    // nothing ran, at least a week, at most ten years.
    function dailySeries(byDay) {
        const known = {}
        let first = ""
        for (const b of byDay) {
            known[b.key] = b
            if (first === "" || b.key < first) first = b.key
        }
        const out = { days: [], input: [], output: [], cacheRead: [], cost: [] }
        const end = today()
        const fromText = fromDay() !== "" ? fromDay() : first
        if (fromText === "") return out
        const start = Math.min(Date.parse(fromText + "T00:00:00Z"), end - 6 * 86400000)
        for (let t = start, n = 0; t <= end && n < 3660; t += 86400000, n++) {
            const b = known[isoDay(t)]
            out.days.push(t)
            out.input.push(b ? b.inputTokens : 0)
            out.output.push(b ? b.outputTokens : 0)
            out.cacheRead.push(b ? b.cacheReadTokens : 0)
            out.cost.push(b ? b.costUsd : 0)
        }
        return out
    }
    function tokens(v) {
        if (v >= 1e9) return (v / 1e9).toFixed(1) + "B"
        if (v >= 1e6) return (v / 1e6).toFixed(1) + "M"
        if (v >= 1e3) return (v / 1e3).toFixed(1) + "k"
        return String(Math.round(v))
    }
    function dollars(v) {
        if (v >= 100) return "$" + Math.round(v)
        if (v >= 1 || v === 0) return "$" + v.toFixed(2)
        return "$" + Number(v.toPrecision(2))  // cents and less: two significant digits
    }
    function projectName(path) {
        if (!workbench) return path
        for (let i = 0; i < workbench.projects.count; i++) {
            const p = workbench.projects.get(i)
            if (p.path === path) return p.name
        }
        return path
    }

    onVisibleChanged: if (visible) reload()
    onProjectChanged: reload()
    onModelChanged: reload()
    onRangeChanged: reload()
    onSummaryChanged: {
        if (model !== "" || !summary.byModel) return
        const names = summary.byModel.map((b) => b.key)
        for (const name of seenModels) if (names.indexOf(name) < 0) names.push(name)
        seenModels = names.sort()
    }

    ScrollView {
        anchors.fill: parent
        contentWidth: availableWidth
        ColumnLayout {
            width: parent.width
            spacing: 12
            Item { implicitHeight: 4 }
            RowLayout {
                Layout.fillWidth: true
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                Label { text: "Analytics"; font.pixelSize: 18; font.bold: true; color: Theme.text }
                Label {
                    objectName: "analyticsLoading"
                    visible: root.workbench && root.workbench.analyticsLoading
                    text: "Updating…"
                    color: Theme.muted
                }
                Item { Layout.fillWidth: true }
                Button { text: "Close"; onClicked: root.closeRequested() }
            }

            RowLayout {
                objectName: "analyticsFilters"
                Layout.leftMargin: 16
                spacing: 12
                ColumnLayout {
                    Label { text: "Project"; color: Theme.muted }
                    ComboBox {
                        objectName: "projectFilter"
                        implicitWidth: 200
                        textRole: "name"
                        valueRole: "path"
                        model: {
                            const list = [{ name: "All projects", path: "" }]
                            if (root.workbench)
                                for (let i = 0; i < root.workbench.projects.count; i++) list.push(root.workbench.projects.get(i))
                            return list
                        }
                        onActivated: root.project = currentValue
                    }
                }
                ColumnLayout {
                    Label { text: "Model"; color: Theme.muted }
                    ComboBox {
                        objectName: "modelFilter"
                        implicitWidth: 200
                        model: ["All models"].concat(root.seenModels)
                        onActivated: (index) => root.model = index === 0 ? "" : root.seenModels[index - 1]
                    }
                }
                ColumnLayout {
                    Label { text: "Period"; color: Theme.muted }
                    ComboBox {
                        objectName: "periodFilter"
                        implicitWidth: 160
                        textRole: "text"
                        valueRole: "value"
                        model: [
                            { text: "Last 7 days", value: "7" }, { text: "Last 30 days", value: "30" },
                            { text: "Last 90 days", value: "90" }, { text: "Last year", value: "365" },
                            { text: "All time", value: "all" }
                        ]
                        currentIndex: 1
                        onActivated: root.range = currentValue
                    }
                }
            }

            Label {
                objectName: "analyticsError"
                visible: root.workbench && root.workbench.analyticsError !== ""
                text: root.workbench ? root.workbench.analyticsError : ""
                textFormat: Text.PlainText
                color: Theme.error
                Layout.leftMargin: 16
            }

            Flow {
                objectName: "analyticsTiles"
                Layout.fillWidth: true
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                spacing: 8
                Repeater {
                    model: [
                        { label: "Cost", value: root.dollars(root.summary.costUsd || 0) },
                        { label: "Input tokens", value: root.tokens(root.summary.inputTokens || 0) },
                        { label: "Output tokens", value: root.tokens(root.summary.outputTokens || 0) },
                        { label: "Cache hit", value: Math.round((root.summary.cacheHitRatio || 0) * 100) + "%" },
                        { label: "Turns", value: String(root.summary.turns || 0) },
                        { label: "Steps", value: String(root.summary.steps || 0) },
                        { label: "Tool calls", value: String(root.summary.toolCalls || 0) },
                        { label: "First token", value: root.summary.medianFirstTokenMs !== undefined ? root.summary.medianFirstTokenMs + " ms" : "—" }
                    ]
                    Rectangle {
                        objectName: "stat-" + modelData.label
                        property string value: modelData.value
                        width: 130
                        height: 56
                        radius: Theme.radius
                        color: Theme.surface
                        border.color: Theme.border
                        Column {
                            anchors.fill: parent
                            anchors.margins: 8
                            Label { text: modelData.value; font.pixelSize: 18; color: Theme.text }
                            Label { text: modelData.label; color: Theme.muted; font.pixelSize: 11 }
                        }
                    }
                }
            }

            DailyChart {
                objectName: "tokensChart"
                Layout.fillWidth: true
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                title: "Tokens per day (UTC)"
                days: root.series.days
                format: root.tokens
                series: [
                    { label: "Input", values: root.series.input, color: Theme.accent },
                    { label: "Output", values: root.series.output, color: Theme.ok },
                    { label: "Cache read", values: root.series.cacheRead, color: Theme.warning }
                ]
            }
            DailyChart {
                objectName: "costChart"
                Layout.fillWidth: true
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                title: "Cost per day (UTC)"
                days: root.series.days
                format: root.dollars
                series: [{ label: "Cost", values: root.series.cost, color: Theme.accent, bars: true }]
            }

            Repeater {
                model: [
                    { title: "By project", rows: root.summary.byProject || [], project: true },
                    { title: "By model", rows: root.summary.byModel || [], project: false }
                ]
                ColumnLayout {
                    id: table
                    property bool byProject: modelData.project
                    Layout.leftMargin: 16
                    Layout.rightMargin: 16
                    Layout.fillWidth: true
                    visible: modelData.rows.length > 0
                    Label { text: modelData.title; font.bold: true; color: Theme.text }
                    Repeater {
                        model: modelData.rows
                        RowLayout {
                            Layout.fillWidth: true
                            Label {
                                text: table.byProject ? root.projectName(modelData.key) : modelData.key
                                color: Theme.text
                                elide: Text.ElideMiddle
                                Layout.preferredWidth: 300
                            }
                            Label { text: modelData.steps + " steps"; color: Theme.muted; Layout.preferredWidth: 90; horizontalAlignment: Text.AlignRight }
                            Label { text: root.tokens(modelData.inputTokens) + " in"; color: Theme.muted; Layout.preferredWidth: 80; horizontalAlignment: Text.AlignRight }
                            Label { text: root.tokens(modelData.outputTokens) + " out"; color: Theme.muted; Layout.preferredWidth: 80; horizontalAlignment: Text.AlignRight }
                            Label { text: root.dollars(modelData.costUsd); color: Theme.text; Layout.preferredWidth: 70; horizontalAlignment: Text.AlignRight }
                        }
                    }
                }
            }

            ColumnLayout {
                objectName: "toolTable"
                Layout.leftMargin: 16
                Layout.rightMargin: 16
                Layout.bottomMargin: 16
                visible: (root.summary.tools || []).length > 0
                Label { text: "Tools"; font.bold: true; color: Theme.text }
                Repeater {
                    objectName: "toolRows"
                    model: root.summary.tools || []
                    RowLayout {
                        Label { text: modelData.tool; font.family: Theme.monoFamily; color: Theme.text; Layout.preferredWidth: 220; elide: Text.ElideRight }
                        Label { text: modelData.calls + " calls"; color: Theme.muted; Layout.preferredWidth: 90; horizontalAlignment: Text.AlignRight }
                        Label {
                            text: modelData.errors + " errors"
                            color: modelData.errors > 0 ? Theme.error : Theme.muted
                            Layout.preferredWidth: 80
                            horizontalAlignment: Text.AlignRight
                        }
                        Label { text: modelData.interrupted + " interrupted"; color: Theme.muted; Layout.preferredWidth: 110; horizontalAlignment: Text.AlignRight }
                        Label { text: Math.round(modelData.meanMs || 0) + " ms mean"; color: Theme.muted; Layout.preferredWidth: 100; horizontalAlignment: Text.AlignRight }
                    }
                }
            }
        }
    }
}
