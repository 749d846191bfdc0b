// A uPlot chart over days: one canvas, series drawn as lines or bars, resized
// with its container. uPlot owns the canvas; React only hands it data.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { cssVar } from "./theme";

export interface ChartSeries {
  label: string;
  values: number[];
  color: string;
  bars?: boolean;
  format?: (value: number) => string;
}

interface Props {
  title: string;
  days: number[]; // UTC midnight of each day, in seconds (uPlot's time unit)
  series: ChartSeries[];
  height?: number;
}

function optionsOf(props: Props, width: number): uPlot.Options {
  const bars = uPlot.paths.bars ? uPlot.paths.bars({ size: [0.7, 24] }) : undefined;
  const format = props.series[0]?.format ?? ((v: number) => String(v));
  return {
    title: props.title,
    width,
    height: props.height ?? 220,
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
    cursor: { drag: { x: false, y: false } },
    legend: { live: true },
    // Half a day either side so the first and last bars show whole. Give it
    // at least two days: uPlot stretches a single time value over 1,000 days
    // (see dailySeries' minDays).
    scales: { x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] } },
    axes: [
      {
        stroke: cssVar("--muted", "#636c76"),
        grid: { stroke: cssVar("--border", "#d6d9de") },
        incrs: [1, 2, 7, 14, 30.5, 91.5, 183, 365.25].map((days) => days * 86_400),
        values: (_u, ticks) => ticks.map((t) => new Date(t * 1000).toISOString().slice(5, 10)),
      },
      { stroke: cssVar("--muted", "#636c76"), grid: { stroke: cssVar("--border", "#d6d9de") }, size: 64, values: (_u, ticks) => ticks.map(format) },
    ],
    series: [
      { label: "Day", value: (_u, v) => (v == null ? "—" : new Date(v * 1000).toISOString().slice(0, 10)) },
      ...props.series.map((s) => ({
        label: s.label,
        stroke: s.color,
        fill: s.bars ? s.color + "99" : s.color + "22",
        width: s.bars ? 0 : 1.5,
        paths: s.bars ? bars : undefined,
        points: { show: !s.bars && props.days.length <= 31 },
        value: (_u: uPlot, v: number | null) => (v == null ? "—" : (s.format ?? format)(v)),
      })),
    ],
  };
}

export function UsageChart(props: Props) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // Points are drawn for a month or less (an option, not data): crossing that
  // makes a new plot too.
  const shape =
    props.series.map((s) => s.label + (s.bars ? ":bars" : "")).join("|") + props.title + (props.days.length <= 31 ? ":points" : "");

  // A new plot when the series change shape; new data otherwise.
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const width = Math.max(320, element.clientWidth || 640);
    plot.current = new uPlot(optionsOf(props, width), [props.days, ...props.series.map((s) => s.values)], element);
    element.dataset.days = String(props.days.length); // what the plot holds, for tests and the render benchmark
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => {
      const next = Math.max(320, element.clientWidth);
      if (plot.current && next !== plot.current.width) plot.current.setSize({ width: next, height: props.height ?? 220 });
    });
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape]);

  useEffect(() => {
    plot.current?.setData([props.days, ...props.series.map((s) => s.values)]);
    if (host.current) host.current.dataset.days = String(props.days.length);
  }, [props.days, props.series]);

  return <div className="usage-chart" ref={host} role="img" aria-label={props.title} data-testid="usage-chart" />;
}
