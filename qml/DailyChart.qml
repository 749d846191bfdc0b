import QtQuick
import QtQuick.Controls

// A chart over days, drawn with Qt Quick's own Canvas (the web page uses
// uPlot): lines for tokens, bars for cost, a value axis with four steps,
// month starts along the bottom, and the hovered day's values underneath.
Item {
    id: chart
    property string title: ""
    property var days: []      // UTC midnight of each day, in milliseconds
    property var series: []    // [{label, values, color, bars}]
    property var format: function(v) { return String(v) }
    readonly property int dayCount: days.length
    property int hovered: -1
    implicitHeight: 250

    readonly property int plotLeft: 64
    readonly property int plotRight: 10
    readonly property int plotTop: 8
    readonly property int plotBottom: 22

    function maxValue() {
        let max = 0
        for (const s of series)
            for (const v of s.values) if (v > max) max = v
        if (max <= 0) return 1
        // A round top: 1, 2 or 5 times a power of ten, so the steps read well.
        const power = Math.pow(10, Math.floor(Math.log10(max)))
        for (const m of [1, 2, 5, 10]) if (max <= m * power) return m * power
        return 10 * power
    }
    function dayAt(x) {
        const w = canvas.width - plotLeft - plotRight
        if (dayCount === 0 || x < plotLeft || x > plotLeft + w) return -1
        return Math.min(dayCount - 1, Math.floor((x - plotLeft) / (w / dayCount)))
    }
    function isoDay(ms) { return new Date(ms).toISOString().slice(0, 10) }

    onDaysChanged: canvas.requestPaint()
    onSeriesChanged: canvas.requestPaint()
    onHoveredChanged: canvas.requestPaint()
    Connections {
        target: Theme
        function onDarkChanged() { canvas.requestPaint() }
    }

    Label {
        id: titleLabel
        text: chart.title
        font.bold: true
        color: Theme.text
        anchors.horizontalCenter: parent.horizontalCenter
    }

    Canvas {
        id: canvas
        objectName: "chartCanvas"
        anchors.top: titleLabel.bottom
        anchors.topMargin: 4
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.bottom: readout.top
        renderStrategy: Canvas.Cooperative
        onWidthChanged: requestPaint()
        onHeightChanged: requestPaint()

        onPaint: {
            const ctx = getContext("2d")
            ctx.reset()
            const w = width - chart.plotLeft - chart.plotRight
            const h = height - chart.plotTop - chart.plotBottom
            if (w <= 0 || h <= 0) return
            const max = chart.maxValue()
            const y = (v) => chart.plotTop + h - (v / max) * h
            ctx.font = "11px sans-serif"
            ctx.lineWidth = 1
            ctx.textBaseline = "middle"
            ctx.textAlign = "right"
            for (let i = 0; i <= 4; i++) {
                const value = (max * i) / 4
                ctx.strokeStyle = Theme.border
                ctx.beginPath()
                ctx.moveTo(chart.plotLeft, Math.round(y(value)) + 0.5)
                ctx.lineTo(chart.plotLeft + w, Math.round(y(value)) + 0.5)
                ctx.stroke()
                ctx.fillStyle = Theme.muted
                ctx.fillText(chart.format(value), chart.plotLeft - 6, y(value))
            }
            const n = chart.dayCount
            if (n === 0) return
            const slot = w / n
            const x = (i) => chart.plotLeft + (i + 0.5) * slot
            // Month starts (or every day of a short range) along the bottom.
            ctx.textAlign = "center"
            ctx.textBaseline = "top"
            let lastLabel = -1e9
            for (let i = 0; i < n; i++) {
                const day = new Date(chart.days[i])
                const label = n <= 14 || day.getUTCDate() === 1
                if (!label || x(i) - lastLabel < 44) continue
                lastLabel = x(i)
                ctx.fillStyle = Theme.muted
                ctx.fillText(chart.isoDay(chart.days[i]).slice(5), x(i), chart.plotTop + h + 5)
            }
            for (const s of chart.series) {
                ctx.fillStyle = s.color
                ctx.strokeStyle = s.color
                if (s.bars) {
                    const bar = Math.max(1, Math.min(24, slot * 0.7))
                    for (let i = 0; i < n; i++) {
                        const v = s.values[i] || 0
                        if (v > 0) ctx.fillRect(x(i) - bar / 2, y(v), bar, chart.plotTop + h - y(v))
                    }
                } else {
                    ctx.lineWidth = 1.5
                    ctx.beginPath()
                    for (let i = 0; i < n; i++) {
                        const v = s.values[i] || 0
                        if (i === 0) ctx.moveTo(x(i), y(v))
                        else ctx.lineTo(x(i), y(v))
                    }
                    ctx.stroke()
                    if (n <= 31) {
                        for (let i = 0; i < n; i++) {
                            ctx.beginPath()
                            ctx.arc(x(i), y(s.values[i] || 0), 2.5, 0, 2 * Math.PI)
                            ctx.fill()
                        }
                    }
                }
            }
            if (chart.hovered >= 0 && chart.hovered < n) {
                ctx.strokeStyle = Theme.muted
                ctx.lineWidth = 1
                ctx.beginPath()
                ctx.moveTo(Math.round(x(chart.hovered)) + 0.5, chart.plotTop)
                ctx.lineTo(Math.round(x(chart.hovered)) + 0.5, chart.plotTop + h)
                ctx.stroke()
            }
        }

        MouseArea {
            anchors.fill: parent
            hoverEnabled: true
            onPositionChanged: (mouse) => chart.hovered = chart.dayAt(mouse.x)
            onExited: chart.hovered = -1
        }
    }

    // The hovered day's values, else the series' names and colours.
    Row {
        id: readout
        objectName: "chartReadout"
        anchors.bottom: parent.bottom
        anchors.horizontalCenter: parent.horizontalCenter
        spacing: 14
        height: 20
        Label {
            visible: chart.hovered >= 0
            text: chart.hovered >= 0 && chart.hovered < chart.dayCount ? chart.isoDay(chart.days[chart.hovered]) : ""
            color: Theme.text
            font.bold: true
        }
        Repeater {
            model: chart.series
            Row {
                spacing: 5
                Rectangle { width: 10; height: 10; radius: 2; color: modelData.color; anchors.verticalCenter: parent.verticalCenter }
                Label {
                    color: Theme.text
                    text: modelData.label + (chart.hovered >= 0 && chart.hovered < chart.dayCount
                                             ? ": " + chart.format(modelData.values[chart.hovered] || 0) : "")
                }
            }
        }
    }
}
