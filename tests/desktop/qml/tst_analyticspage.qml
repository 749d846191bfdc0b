import QtQuick
import QtTest
import "../../../qml"

// The analytics page against a stand-in for the Workbench: the filters ask
// for the right query, the totals and tables show the answer, and the
// charts hold one value per day of the period.
Item {
    width: 1000
    height: 800

    function bucket(key, input, cost) {
        return { key: key, inputTokens: input, outputTokens: input / 10, cacheReadTokens: input * 2,
                 cacheWriteTokens: 0, steps: 3, costUsd: cost }
    }

    QtObject {
        id: fake
        property var projects: ({ count: 1, get: function(i) { return { id: "p1", name: "shop", path: "/src/shop" } } })
        property var analytics: ({})
        property string analyticsError: ""
        property bool analyticsLoading: false
        property var queries: []
        function loadAnalytics(filters) { queries.push(filters) }
    }

    AnalyticsPage {
        id: page
        anchors.fill: parent
        workbench: fake
        now: new Date(Date.UTC(2026, 11, 6, 15, 0))
    }

    TestCase {
        name: "AnalyticsPage"
        when: windowShown

        function init() {
            fake.queries = []
            fake.analyticsError = ""
            fake.analytics = {
                sessions: 2, turns: 5, steps: 9, toolCalls: 4, inputTokens: 1500000, outputTokens: 2300,
                cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 12.5, cacheHitRatio: 0.25,
                medianFirstTokenMs: 640,
                byDay: [bucket("2026-12-01", 1000000, 10), bucket("2026-12-06", 500000, 2.5)],
                byProject: [bucket("/src/shop", 1500000, 12.5)],
                byModel: [bucket("claude-sonnet-4-5", 1000000, 10), bucket("gpt-5", 500000, 2.5)],
                byProvider: [bucket("anthropic", 1500000, 12.5)],
                tools: [{ tool: "bash", calls: 3, errors: 1, interrupted: 0, meanMs: 120 },
                        { tool: "edit", calls: 1, errors: 0, interrupted: 0, meanMs: 8 }]
            }
        }

        function test_totals_tables_and_thirty_days_of_chart() {
            compare(findChild(page, "stat-Cost").value, "$12.50")
            compare(findChild(page, "stat-Input tokens").value, "1.5M")
            compare(findChild(page, "stat-Turns").value, "5")
            compare(findChild(page, "stat-Cache hit").value, "25%")
            compare(findChild(page, "stat-First token").value, "640 ms")
            compare(findChild(page, "tokensChart").dayCount, 30)
            compare(findChild(page, "costChart").dayCount, 30)
            compare(findChild(page, "toolRows").count, 2)
            const tokens = findChild(page, "tokensChart")
            compare(tokens.series[0].values[29], 500000)  // today, the last day
            compare(tokens.series[0].values[24], 1000000) // 2026-12-01
            compare(tokens.series[0].values[0], 0)
        }

        function test_the_period_asks_from_its_first_day_and_charts_every_day() {
            const period = findChild(page, "periodFilter")
            period.currentIndex = 3
            period.activated(3)
            compare(page.range, "365")
            compare(fake.queries[fake.queries.length - 1].from, "2025-12-07")
            compare(findChild(page, "tokensChart").dayCount, 365)
            period.currentIndex = 4
            period.activated(4)
            verify(fake.queries[fake.queries.length - 1].from === undefined)
            // All time: from the first day with data, at least a week.
            compare(findChild(page, "tokensChart").dayCount, 7)
            period.currentIndex = 1
            period.activated(1)
        }

        function test_model_and_project_filters_go_into_the_query() {
            const models = findChild(page, "modelFilter")
            compare(models.count, 3)
            models.currentIndex = 2
            models.activated(2)
            compare(fake.queries[fake.queries.length - 1].model, "gpt-5")
            const projects = findChild(page, "projectFilter")
            projects.currentIndex = 1
            projects.activated(1)
            compare(fake.queries[fake.queries.length - 1].project, "/src/shop")
            compare(fake.queries[fake.queries.length - 1].model, "gpt-5")
            models.currentIndex = 0
            models.activated(0)
            projects.currentIndex = 0
            projects.activated(0)
            verify(fake.queries[fake.queries.length - 1].model === undefined)
        }

        function test_an_error_is_shown_as_text() {
            fake.analyticsError = "<b>index</b> unavailable"
            const label = findChild(page, "analyticsError")
            verify(label.visible)
            compare(label.textFormat, Text.PlainText)
        }

        function test_hovering_a_day_reads_its_values() {
            const chart = findChild(page, "tokensChart")
            const canvas = findChild(chart, "chartCanvas")
            // The first move enters the area, the second moves in it.
            mouseMove(canvas, canvas.width - chart.plotRight - 3, canvas.height / 2)
            mouseMove(canvas, canvas.width - chart.plotRight - 2, canvas.height / 2)
            tryCompare(chart, "hovered", 29)
            compare(findChild(chart, "chartReadout").children[0].text, "2026-12-06")
            mouseMove(canvas, 2, canvas.height / 2)
            compare(chart.hovered, -1)
        }
    }
}
