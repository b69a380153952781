// Per provider, the addresses at each rating of the scale for indoor voice (Likely, Limited, None on
// Ofcom's current scale), so that a Limited address is seen as such, not only as "not good".
import { SCALES } from "../../../spec/mobile-scales.js";
import { barChart } from "../charts.js";
import { figure } from "../figure.js";
import { formatCount, formatShare, shareValue } from "../format.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import type { HtmlReportData } from "../types.js";

const n = formatCount;

export function ratingsFigure(data: HtmlReportData): string {
  const m = data.summary.mobile!;
  const providers = data.summary.providers;
  const scale = SCALES[m.scale];
  const at = (p: string) => m.ratings[p]?.indoorVoice ?? [];
  const values = [...scale.values].reverse();
  const series = values.map((v, i) => ({
    name: `${v.rating} ${v.label}`,
    values: providers.map((p) => shareValue(at(p).find((r) => r.rating === v.rating)?.addresses ?? 0, m.addresses)),
    labels: providers.map((p) => `${v.label} ${formatShare(at(p).find((r) => r.rating === v.rating)?.addresses ?? 0, m.addresses)}`),
    colour: PALETTE[i % PALETTE.length]!,
  }));
  const count = (p: string, rating: number) => at(p).find((r) => r.rating === rating)?.addresses ?? 0;
  return figure({
    id: "mobile-ratings",
    title: `Indoor voice per rating (${scale.title}), per provider`,
    reading: values.map((v) => `${v.label}: ${v.meaning}`).join("; ") + ".",
    chart: barChart({ title: "Share of addresses per indoor voice rating, per provider", categories: providers, series, orientation: "horizontal", valueAxis: "% of addresses", percent: true, width: 900 }),
    wide: true,
    empty: "",
    table: table({
      caption: `Addresses per indoor voice rating and provider, of ${n(m.addresses)} mobile addresses (${scale.title})`,
      columns: ["Provider", ...values.flatMap((v) => [`${v.rating} ${v.label}`, "Share"])],
      rows: providers.map((p) => ({ header: p, cells: values.flatMap((v) => [n(count(p, v.rating)), formatShare(count(p, v.rating), m.addresses)]) })),
    }),
  });
}
