// Per provider, the addresses at each rating of the scale for indoor voice (Likely (4), Limited (3),
// None (0) on Ofcom's current scale), so that a Limited address is seen as such, not only as "not
// good". When the figures combine both scales, one figure per scale, each over its own answers and
// in its own words.
import { ratingName, SCALES, type MobileScale } from "../../../contract/mobile-scales.js";
import type { RatingShare } from "../../scale/scale-figures.js";
import { barChart } from "../charts.js";
import { figure } from "../figure.js";
import { formatCount, formatShare, shareValue } from "../format.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import type { HtmlReportData } from "../types.js";
import { answeredOnlyLabel, isAnsweredOnly } from "../../words/answered-only.js";

const n = formatCount;

export function ratingsFigure(data: HtmlReportData): string {
  const m = data.summary.mobile!;
  const shares = Object.values(m.ratings).flatMap((r) => r.indoorVoice);
  const tagged = [...new Set(shares.map((r) => r.scale).filter((s): s is MobileScale => s !== undefined))];
  if (tagged.length === 0) return scaleFigure(data, m.scale, m.addresses, (r) => r.scale === undefined, "mobile-ratings");
  return tagged.map((scale) => scaleFigure(data, scale, m.scaleAddresses?.[scale] ?? 0, (r) => r.scale === scale, `mobile-ratings-${scale}`)).join("");
}

/** One scale's figure: `addresses` the answers on it, `on` which of the summary's shares are its. */
function scaleFigure(data: HtmlReportData, scaleName: MobileScale, addresses: number, on: (r: RatingShare) => boolean, id: string): string {
  const m = data.summary.mobile!;
  const providers = data.summary.providers;
  const scale = SCALES[scaleName];
  const at = (p: string) => (m.ratings[p]?.indoorVoice ?? []).filter(on);
  const values = [...scale.values].reverse();
  const count = (p: string, rating: number) => at(p).find((r) => r.rating === rating)?.addresses ?? 0;
  const series = values.map((v, i) => ({
    name: ratingName(scaleName, v.rating),
    values: providers.map((p) => shareValue(count(p, v.rating), addresses)),
    labels: providers.map((p) => `${ratingName(scaleName, v.rating)} ${formatShare(count(p, v.rating), addresses)}`),
    colour: PALETTE[i % PALETTE.length]!,
  }));
  return figure({
    id,
    title: `Indoor voice per rating (${scale.title}), per provider`,
    reading: values.map((v) => `${ratingName(scaleName, v.rating)}: ${v.meaning}`).join("; ") + ".",
    chart: barChart({ title: "Share of addresses per indoor voice rating, per provider", categories: providers, series, orientation: "horizontal", valueAxis: "% of addresses", percent: true, width: 900 }),
    wide: true,
    empty: "",
    table: table({
      caption: answeredOnlyLabel(`Addresses per indoor voice rating and provider, of ${n(addresses)} mobile addresses (${scale.title})`, isAnsweredOnly(data.summary)),
      columns: ["Provider", ...values.flatMap((v) => [ratingName(scaleName, v.rating), "Share"])],
      rows: providers.map((p) => ({ header: p, cells: values.flatMap((v) => [n(count(p, v.rating)), formatShare(count(p, v.rating), addresses)]) })),
    }),
  });
}
