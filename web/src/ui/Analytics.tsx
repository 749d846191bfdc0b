// Analytics (docs/analytics.md): what the sessions spent and did, from the
// index the server derives from the logs. Filters by project, model,
// provider and days; totals, daily charts, and tables by project, model,
// provider and tool.
import { useEffect, useMemo, useState } from "react";
import { api, ApiRequestError } from "../api/client";
import type { AnalyticsSummary, Project, UsageBucket } from "../api/protocol.gen";
import { cssVar } from "./theme";
import { UsageChart, type ChartSeries } from "./UsageChart";

export type Range = "7" | "30" | "90" | "365" | "all" | "custom";

export interface Filters {
  project: string;
  model: string;
  provider: string;
  range: Range;
  from: string;
  to: string;
}

const dayMs = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The query the filters ask for; a range counts back from today (UTC). */
export function queryOf(f: Filters, now = Date.now()): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.project) q.project = f.project;
  if (f.model) q.model = f.model;
  if (f.provider) q.provider = f.provider;
  if (f.range === "custom") {
    if (f.from) q.from = f.from;
    if (f.to) q.to = f.to;
  } else if (f.range !== "all") {
    q.from = isoDay(now - (Number(f.range) - 1) * dayMs);
  }
  return q;
}

/**
 * Every day from the first to the last (or the query's bounds), with zeros
 * where nothing ran, so a chart's gaps are days and not missing points.
 * At least minDays (ending on the last), capped at ten years of days.
 */
export function dailySeries(byDay: UsageBucket[], from?: string, to?: string, minDays = 1) {
  const known = new Map(byDay.map((b) => [b.key, b]));
  const keys = byDay.map((b) => b.key).sort();
  const first = from ?? keys[0];
  const last = to ?? keys[keys.length - 1] ?? first;
  const out = { days: [] as number[], input: [] as number[], output: [] as number[], cacheRead: [] as number[], cost: [] as number[] };
  if (!first || !last) return out;
  const end = Date.parse(last + "T00:00:00Z");
  const start = Math.min(Date.parse(first + "T00:00:00Z"), end - (minDays - 1) * dayMs);
  if (!Number.isFinite(start) || !Number.isFinite(end)) return out;
  for (let t = start, n = 0; t <= end && n < 3660; t += dayMs, n++) {
    const b = known.get(isoDay(t));
    out.days.push(t / 1000);
    out.input.push(b?.inputTokens ?? 0);
    out.output.push(b?.outputTokens ?? 0);
    out.cacheRead.push(b?.cacheReadTokens ?? 0);
    out.cost.push(b?.costUsd ?? 0);
  }
  return out;
}

export const tokens = (n: number) =>
  n >= 1e9 ? `${(n / 1e9).toFixed(1)}B` : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n));
export const dollars = (n: number) => (n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`);
const percent = (n: number) => `${(n * 100).toFixed(0)}%`;

function Stat({ label, value, title }: { label: string; value: string; title?: string }) {
  return (
    <div className="stat card" title={title} data-testid={`stat-${label}`}>
      <div className="stat-value">{value}</div>
      <div className="stat-label muted">{label}</div>
    </div>
  );
}

function BucketTable({ title, rows, nameOf }: { title: string; rows: UsageBucket[]; nameOf?: (key: string) => string }) {
  if (rows.length === 0) return null;
  return (
    <table className="analytics-table" aria-label={`By ${title.toLowerCase()}`}>
      <thead>
        <tr>
          <th scope="col">{title}</th>
          <th scope="col">Steps</th>
          <th scope="col">Input</th>
          <th scope="col">Output</th>
          <th scope="col">Cache read</th>
          <th scope="col">Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row" title={r.key}>{(nameOf ?? ((k) => k || "—"))(r.key)}</th>
            <td>{r.steps}</td>
            <td>{tokens(r.inputTokens)}</td>
            <td>{tokens(r.outputTokens)}</td>
            <td>{tokens(r.cacheReadTokens)}</td>
            <td>{dollars(r.costUsd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ToolTable({ summary }: { summary: AnalyticsSummary }) {
  if (summary.tools.length === 0) return null;
  return (
    <table className="analytics-table" aria-label="Tools">
      <thead>
        <tr>
          <th scope="col">Tool</th>
          <th scope="col">Calls</th>
          <th scope="col">Errors</th>
          <th scope="col">Interrupted</th>
          <th scope="col">Mean time</th>
        </tr>
      </thead>
      <tbody>
        {summary.tools.map((t) => (
          <tr key={t.tool} data-tool={t.tool}>
            <th scope="row" className="mono">{t.tool}</th>
            <td>{t.calls}</td>
            <td className={t.errors ? "status-error" : undefined}>
              {t.errors} ({percent(t.calls ? t.errors / t.calls : 0)})
            </td>
            <td>{t.interrupted}</td>
            <td>{t.meanMs >= 1000 ? `${(t.meanMs / 1000).toFixed(1)} s` : `${Math.round(t.meanMs)} ms`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

interface Props {
  projects: Project[];
  now?: number;
}

export function Analytics({ projects, now }: Props) {
  const [filters, setFilters] = useState<Filters>({ project: "", model: "", provider: "", range: "30", from: "", to: "" });
  const [summary, setSummary] = useState<AnalyticsSummary | null>(null);
  const [error, setError] = useState("");
  const [loading, setLoading] = useState(false);
  // Models and providers ever seen, so choosing one does not empty the list.
  const [seen, setSeen] = useState<{ models: string[]; providers: string[] }>({ models: [], providers: [] });
  const query = useMemo(() => queryOf(filters, now), [filters, now]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    api
      .analytics(query)
      .then((s) => {
        if (!live) return;
        setSummary(s);
        setError("");
        setSeen((old) => ({
          models: [...new Set([...old.models, ...s.byModel.map((b) => b.key)])].filter(Boolean).sort(),
          providers: [...new Set([...old.providers, ...s.byProvider.map((b) => b.key)])].filter(Boolean).sort(),
        }));
      })
      .catch((e: unknown) => live && setError(e instanceof ApiRequestError ? e.message : String(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [query]);

  const series = useMemo(() => dailySeries(summary?.byDay ?? [], query.from, query.to ?? (query.from ? isoDay(now ?? Date.now()) : undefined), 7), [summary, query, now]);
  const tokenSeries: ChartSeries[] = useMemo(
    () => [
      { label: "Input", values: series.input, color: cssVar("--accent", "#0b63ce"), format: tokens },
      { label: "Output", values: series.output, color: cssVar("--ok", "#1a7f37"), format: tokens },
      { label: "Cache read", values: series.cacheRead, color: cssVar("--warn", "#9a6700"), format: tokens },
    ],
    [series],
  );
  const costSeries: ChartSeries[] = useMemo(() => [{ label: "Cost", values: series.cost, color: cssVar("--accent", "#0b63ce"), bars: true, format: dollars }], [series]);
  const projectName = (path: string) => projects.find((p) => p.path === path)?.name ?? path;
  const set = (patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch }));

  return (
    <section className="analytics" aria-label="Analytics">
      <div className="page-header">
        <h1>Analytics</h1>
        {loading && <span className="muted">Updating…</span>}
      </div>
      <form className="analytics-filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Project
          <select value={filters.project} onChange={(e) => set({ project: e.target.value })}>
            <option value="">All projects</option>
            {projects.map((p) => (
              <option key={p.id} value={p.path}>{p.name}</option>
            ))}
          </select>
        </label>
        <label>
          Model
          <select value={filters.model} onChange={(e) => set({ model: e.target.value })}>
            <option value="">All models</option>
            {seen.models.map((m) => (
              <option key={m} value={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Provider
          <select value={filters.provider} onChange={(e) => set({ provider: e.target.value })}>
            <option value="">All providers</option>
            {seen.providers.map((p) => (
              <option key={p} value={p}>{p}</option>
            ))}
          </select>
        </label>
        <label>
          Period
          <select value={filters.range} onChange={(e) => set({ range: e.target.value as Range })}>
            <option value="7">Last 7 days</option>
            <option value="30">Last 30 days</option>
            <option value="90">Last 90 days</option>
            <option value="365">Last year</option>
            <option value="all">All time</option>
            <option value="custom">Custom…</option>
          </select>
        </label>
        {filters.range === "custom" && (
          <>
            <label>
              From
              <input type="date" value={filters.from} onChange={(e) => set({ from: e.target.value })} />
            </label>
            <label>
              To
              <input type="date" value={filters.to} onChange={(e) => set({ to: e.target.value })} />
            </label>
          </>
        )}
      </form>
      {error && <div className="error" role="alert">{error}</div>}
      {summary && (
        <>
          <div className="stats">
            <Stat label="Cost" value={dollars(summary.costUsd)} title="At list prices; models without a known price count 0" />
            <Stat label="Input tokens" value={tokens(summary.inputTokens)} />
            <Stat label="Output tokens" value={tokens(summary.outputTokens)} />
            <Stat label="Cache hit" value={percent(summary.cacheHitRatio)} title="Cache reads over all input the model read" />
            <Stat label="Turns" value={String(summary.turns)} title={`${summary.sessions} conversations`} />
            <Stat label="Steps" value={String(summary.steps)} />
            <Stat label="Tool calls" value={String(summary.toolCalls)} />
            <Stat label="First token" value={summary.medianFirstTokenMs == null ? "—" : `${summary.medianFirstTokenMs} ms`} title="Median time to the first streamed token" />
          </div>
          {summary.steps === 0 && summary.turns === 0 ? (
            <p className="muted" data-testid="analytics-empty">Nothing ran in this period.</p>
          ) : (
            <div className="charts">
              <UsageChart title="Tokens per day (UTC)" days={series.days} series={tokenSeries} />
              <UsageChart title="Cost per day (UTC)" days={series.days} series={costSeries} height={160} />
            </div>
          )}
          <div className="analytics-tables">
            <BucketTable title="Project" rows={summary.byProject} nameOf={projectName} />
            <BucketTable title="Model" rows={summary.byModel} />
            <BucketTable title="Provider" rows={summary.byProvider} />
            <ToolTable summary={summary} />
          </div>
        </>
      )}
    </section>
  );
}
