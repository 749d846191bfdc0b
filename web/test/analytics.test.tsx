// The analytics page: totals and tables from the summary, the filters'
// query, days without activity charted as zeros, and the server's refusal
// shown. uPlot draws on a canvas jsdom lacks, so it is replaced by a
// recorder of what it was given.
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AnalyticsSummary } from "../src/api/protocol.gen";

const plots: { title: string; data: number[][] }[] = [];
vi.mock("uplot", () => {
  class FakePlot {
    width: number;
    record: { title: string; data: number[][] };
    constructor(options: { title: string; width: number }, data: number[][]) {
      this.width = options.width;
      this.record = { title: options.title, data };
      plots.push(this.record);
    }
    setData(data: number[][]) {
      this.record.data = data;
    }
    setSize() {}
    destroy() {}
    static paths = { bars: () => () => null };
    static tzDate = (d: Date) => d;
  }
  return { default: FakePlot };
});
vi.mock("uplot/dist/uPlot.min.css", () => ({}));

const { Analytics, dailySeries, queryOf } = await import("../src/ui/Analytics");

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const bucket = (key: string, input: number, cost = 0.5) => ({
  key,
  inputTokens: input,
  outputTokens: input / 10,
  cacheReadTokens: input / 2,
  cacheWriteTokens: 0,
  steps: 3,
  costUsd: cost,
});

const summary: AnalyticsSummary = {
  sessions: 2,
  turns: 5,
  steps: 9,
  toolCalls: 4,
  inputTokens: 30000,
  outputTokens: 3000,
  cacheReadTokens: 15000,
  cacheWriteTokens: 0,
  costUsd: 1.5,
  cacheHitRatio: 0.3333,
  medianFirstTokenMs: 420,
  byDay: [bucket("2026-12-01", 10000), bucket("2026-12-03", 20000, 1)],
  byProject: [bucket("/work/app", 30000, 1.5)],
  byModel: [bucket("claude-sonnet-4-6", 30000, 1.5)],
  byProvider: [bucket("anthropic", 30000, 1.5)],
  tools: [
    { tool: "bash", calls: 3, errors: 1, interrupted: 0, meanMs: 1500 },
    { tool: "read", calls: 1, errors: 0, interrupted: 0, meanMs: 4 },
  ],
};

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

async function flush(ms = 0) {
  await act(async () => {
    await new Promise((r) => setTimeout(r, ms));
  });
}

const now = Date.parse("2026-12-05T12:00:00Z");

describe("analytics", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    plots.length = 0;
  });

  it("turns filters into the query, counting a range back from today", () => {
    const base = { project: "", model: "", provider: "", range: "7" as const, from: "", to: "" };
    expect(queryOf(base, now)).toEqual({ from: "2026-11-29" });
    expect(queryOf({ ...base, range: "all", model: "gpt-5", project: "/p" }, now)).toEqual({ model: "gpt-5", project: "/p" });
    expect(queryOf({ ...base, range: "custom", from: "2026-01-01", to: "2026-01-31" }, now)).toEqual({ from: "2026-01-01", to: "2026-01-31" });
  });

  it("fills days without activity with zeros, and bounds the span", () => {
    const s = dailySeries(summary.byDay, "2026-11-30", "2026-12-04");
    expect(s.days.length).toBe(5);
    expect(s.input).toEqual([0, 10000, 0, 20000, 0]);
    expect(s.cost).toEqual([0, 0.5, 0, 1, 0]);
    expect(dailySeries([], undefined, undefined).days).toEqual([]);
    expect(dailySeries([bucket("1900-01-01", 1)], undefined, "2999-01-01").days.length).toBe(3660);
    expect(dailySeries([], "not a day", "2026-01-01").days).toEqual([]);
    // One active day is charted as the week ending on it.
    const week = dailySeries([bucket("2026-12-05", 7)], undefined, undefined, 7);
    expect(week.input).toEqual([0, 0, 0, 0, 0, 0, 7]);
    expect(new Date(week.days[0] * 1000).toISOString().slice(0, 10)).toBe("2026-11-29");
  });

  it("shows totals, charts and tables, and asks again when a filter changes", async () => {
    const asked: string[] = [];
    vi.stubGlobal("fetch", async (input: string) => {
      asked.push(input);
      return json(summary);
    });
    const host = document.createElement("div");
    document.body.append(host);
    const root = createRoot(host);
    await act(async () => root.render(<Analytics projects={[{ id: "p1", path: "/work/app", name: "app", createdMs: 1 }]} now={now} />));
    await flush();
    expect(asked[0]).toBe("/api/analytics?from=2026-11-06");
    const stat = (label: string) => host.querySelector(`[data-testid="stat-${label}"] .stat-value`)?.textContent;
    expect(stat("Cost")).toBe("$1.50");
    expect(stat("Input tokens")).toBe("30.0k");
    expect(stat("Cache hit")).toBe("33%");
    expect(stat("First token")).toBe("420 ms");
    // Thirty days of the period, the two active ones where they fall.
    const tokensPlot = plots.find((p) => p.title.startsWith("Tokens"))!;
    expect(tokensPlot.data[0].length).toBe(30);
    expect(tokensPlot.data[1].filter((v) => v > 0)).toEqual([10000, 20000]);
    // The project table names the project; the tool table shows error rates.
    const projectTable = host.querySelector('table[aria-label="By project"]')!;
    expect(projectTable.querySelector("tbody th")!.textContent).toBe("app");
    const bash = host.querySelector('tr[data-tool="bash"]')!;
    expect(bash.textContent).toContain("1 (33%)");
    expect(bash.textContent).toContain("1.5 s");

    const model = host.querySelector<HTMLSelectElement>('select')!.closest("form")!.querySelectorAll("select")[1];
    expect([...model.options].map((o) => o.value)).toEqual(["", "claude-sonnet-4-6"]);
    await act(async () => {
      model.value = "claude-sonnet-4-6";
      model.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await flush();
    expect(asked[asked.length - 1]).toBe("/api/analytics?model=claude-sonnet-4-6&from=2026-11-06");
    act(() => root.unmount());
    host.remove();
  });

  it("shows the server's refusal and an empty period", async () => {
    let refuse = true;
    vi.stubGlobal("fetch", async () =>
      refuse ? json({ error: { code: "invalid_argument", message: "from and to are days: YYYY-MM-DD" } }, 400) : json({ ...summary, turns: 0, steps: 0, byDay: [], tools: [], byProject: [], byModel: [], byProvider: [] }),
    );
    const host = document.createElement("div");
    document.body.append(host);
    const root = createRoot(host);
    await act(async () => root.render(<Analytics projects={[]} now={now} />));
    await flush();
    expect(host.querySelector('[role="alert"]')!.textContent).toContain("YYYY-MM-DD");
    refuse = false;
    const period = host.querySelectorAll("select")[3];
    await act(async () => {
      period.value = "all";
      period.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await flush();
    expect(host.querySelector('[role="alert"]')).toBeNull();
    expect(host.querySelector('[data-testid="analytics-empty"]')).not.toBeNull();
  });
});
