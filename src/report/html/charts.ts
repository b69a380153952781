// Bar charts as inline SVG, drawn in Node by ECharts' server-side SVG renderer: no DOM, no browser,
// no script in the page. Every bar carries its own label (a count, a share, or both), so the chart
// reads without colour; the table beside each chart holds the same numbers.
import { createRequire } from "node:module";
import { escapeHtml } from "./format.js";
import { dejaVuWidth } from "./text-width.js";
import { GRID_LINE, INK, OUTLINE } from "./palette.js";

export interface BarSeries {
  /** shown in the legend and, for grouped bars, in each bar's label */
  name: string;
  values: number[];
  /** the text at the end of each bar */
  labels: string[];
  /** one colour for the series, or one per bar */
  colour: string | string[];
  /** per bar, a 95% interval [low, high] drawn as an error bar, the label past its end (one-series charts) */
  intervals?: ([number, number] | null)[];
}

export interface BarChartSpec {
  /** what the chart shows, for screen readers (the table beside it holds the numbers) */
  title: string;
  categories: string[];
  series: BarSeries[];
  /** horizontal: categories down the side, first at the top; vertical: columns left to right */
  orientation: "horizontal" | "vertical";
  /** the value axis's name, e.g. "addresses" or "% of addresses" */
  valueAxis: string;
  /** the value axis ends at 100 (shares) */
  percent?: boolean;
  /** the category axis's name (vertical charts) */
  categoryAxis?: string;
  width?: number;
}

type ECharts = typeof import("echarts");
const require = createRequire(import.meta.url);
let loaded: ECharts | undefined;
/**
 * ECharts, loaded on first use: every batch and report run imports this module, and ECharts' ES
 * modules take seconds to load (its one-file CommonJS build, a fraction of that).
 */
function echarts(): ECharts {
  if (loaded) return loaded;
  // With source maps on (tsx turns them on), Node reads each module's map as it loads: ECharts'
  // 8 MB map cost more memory than ECharts itself (docs/bench.md), and its stack lines are not ours.
  const maps = process.sourceMapsEnabled;
  process.setSourceMapsEnabled(false);
  try {
    loaded = require("echarts") as ECharts;
  } finally {
    process.setSourceMapsEnabled(maps);
  }
  // lay text out for the widest face likely to draw it (text-width.ts)
  loaded.setPlatformAPI({ measureText: (text: string, font?: string) => ({ width: dejaVuWidth(text, font ?? "12px sans-serif") }) as TextMetrics });
  return loaded;
}

const FONT = "Helvetica, Arial, sans-serif";
/** The width of a chart beside its table at 1280 px, so that it is drawn at its own size. */
export const CHART_WIDTH = 640;
const BAR = 20;
const GAP = 12;
/** the height of a rotated axis name, kept clear beside the tick labels */
const NAME_ROOM = 24;
/** room above the grid of upright charts for the label of a bar that reaches the top */
const LABEL_ROOM = 24;

/** Width of the widest value-axis tick label, at most that of the power of ten above the largest value. */
function widestTick(spec: BarChartSpec): number {
  const max = spec.percent ? 100 : Math.max(1, ...spec.series.flatMap((s) => s.values));
  return dejaVuWidth((10 ** Math.ceil(Math.log10(max))).toLocaleString("en-GB"), "12px");
}

/** The SVG of one bar chart. */
export function barChart(spec: BarChartSpec): string {
  const width = spec.width ?? CHART_WIDTH;
  const horizontal = spec.orientation === "horizontal";
  const legend = spec.series.length > 1;
  const height = horizontal
    ? spec.categories.length * (spec.series.length * BAR + GAP) + (legend ? 90 : 60)
    : 320;
  const chart = echarts().init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    const category = {
      type: "category" as const,
      data: spec.categories,
      inverse: horizontal,
      // every category named; many columns turn their names so that they do not overlap
      axisLabel: { color: INK, fontFamily: FONT, fontSize: 12, interval: 0, rotate: !horizontal && spec.categories.length > 8 ? 35 : 0 },
      axisLine: { lineStyle: { color: OUTLINE } },
      axisTick: { show: false },
      name: spec.categoryAxis,
      nameLocation: "middle" as const,
      nameGap: !horizontal && spec.categories.length > 8 ? 52 : 28,
      nameTextStyle: { color: INK, fontFamily: FONT },
    };
    const value = {
      type: "value" as const,
      max: spec.percent ? 100 : undefined,
      // counts step in whole addresses
      minInterval: spec.percent ? undefined : 1,
      name: spec.valueAxis,
      nameLocation: "middle" as const,
      // upright charts: the axis name sits left of the widest tick label, inside the grid's left margin
      nameGap: horizontal ? 26 : widestTick(spec) + 12,
      nameTextStyle: { color: INK, fontFamily: FONT },
      axisLabel: { color: INK, fontFamily: FONT, formatter: (v: number) => v.toLocaleString("en-GB") },
      splitLine: { lineStyle: { color: GRID_LINE } },
    };
    chart.setOption({
      animation: false,
      aria: { enabled: false },
      textStyle: { fontFamily: FONT, color: INK },
      legend: legend
        ? { top: 0, left: 0, itemWidth: 14, itemHeight: 14, textStyle: { color: INK, fontFamily: FONT }, data: spec.series.map((s) => s.name) }
        : undefined,
      // room for the labels past the longest bar
      grid: { left: horizontal ? 8 : 8 + NAME_ROOM, right: horizontal ? 170 : 16, top: legend ? 36 : horizontal ? 12 : LABEL_ROOM, bottom: horizontal ? 40 : spec.categories.length > 8 ? 64 : 40, containLabel: true },
      xAxis: horizontal ? value : category,
      yAxis: horizontal ? category : value,
      series: [
        ...spec.series.map((s) => ({
        type: "bar",
        name: s.name,
        barMaxWidth: horizontal ? BAR : 48,
        barGap: "10%",
        itemStyle: { borderColor: OUTLINE, borderWidth: 1, color: typeof s.colour === "string" ? s.colour : undefined },
        data: s.values.map((v, i) => (typeof s.colour === "string" ? v : { value: v, itemStyle: { color: s.colour[i] } })),
        label: {
          show: !s.intervals,
          position: horizontal ? "right" : "top",
          color: INK,
          fontFamily: FONT,
          fontSize: 12,
          formatter: (p: { dataIndex: number }) => s.labels[p.dataIndex] ?? "",
        },
      })),
        ...spec.series.flatMap((s) => (s.intervals ? [errorBars(s, horizontal)] : [])),
      ],
    });
    // role and name for assistive technology; the SVG scales down with its box
    return chart.renderToSVGString().replace(/^<svg /, `<svg role="img" aria-label="${escapeHtml(spec.title)}" class="chart" `);
  } finally {
    chart.dispose();
  }
}

type Coord = (value: number[]) => number[];
/**
 * A series' intervals as error bars (a custom series: a line from low to high with a cap at each
 * end), each bar's label drawn past the interval's end so that the whisker never crosses it.
 */
function errorBars(s: BarSeries, horizontal: boolean) {
  const intervals = s.intervals ?? [];
  return {
    type: "custom",
    name: `${s.name} (95% interval)`,
    silent: true,
    // above the bars, so that the part of the whisker inside a bar shows
    z: 3,
    encode: horizontal ? { x: [0, 1], y: 2 } : { x: 2, y: [0, 1] },
    data: intervals.map((iv, i) => (iv ? [iv[0], iv[1], i] : [s.values[i] ?? 0, s.values[i] ?? 0, i])),
    renderItem: (params: { dataIndex: number }, api: { value: (dim: number) => number; coord: Coord }) => {
      const i = params.dataIndex;
      const at = (v: number) => api.coord(horizontal ? [v, i] : [i, v]);
      const [lx, ly] = at(api.value(0)) as [number, number];
      const [hx, hy] = at(api.value(1)) as [number, number];
      const line = (x1: number, y1: number, x2: number, y2: number) => ({ type: "line", shape: { x1, y1, x2, y2 }, style: { stroke: INK, lineWidth: 1.5 } });
      const cap = (x: number, y: number) => (horizontal ? line(x, y - 5, x, y + 5) : line(x - 5, y, x + 5, y));
      const whisker = intervals[i] ? [line(lx, ly, hx, hy), cap(lx, ly), cap(hx, hy)] : [];
      const text = { type: "text", x: horizontal ? hx + 6 : hx, y: horizontal ? hy : hy - 6, style: { text: s.labels[i] ?? "", fill: INK, font: `12px ${FONT}`, align: horizontal ? "left" : "center", verticalAlign: horizontal ? "middle" : "bottom" } };
      return { type: "group", children: [...whisker, text] };
    },
  };
}

/** True when a chart of these series would draw no visible bar: say so in words instead. */
export function nothingToDraw(series: readonly { values: readonly number[] }[]): boolean {
  return series.every((s) => s.values.every((v) => v === 0));
}
