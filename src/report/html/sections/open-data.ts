// Ofcom's open data for the postcodes the API has not given broadband figures for: means of the
// postcodes' shares of premises, kept apart from the API's per-address figures, with the
// attribution the Open Government Licence asks for, and the cross-check's count.
import { barChart } from "../charts.js";
import { figure, paragraph, section } from "../figure.js";
import { formatCount } from "../format.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import { meanShareText, type OpenDataSummary } from "../../summary/open-data.js";

const n = formatCount;

export function openDataSection(o: OpenDataSummary, title: string): string {
  const w = o.withoutApi;
  const shares = [
    // short names on the chart's axis; the table says what each is
    { name: "Superfast (30 Mbit/s+)", short: "Superfast", value: w.meanShares.superfast },
    { name: "Ultrafast (300 Mbit/s+)", short: "Ultrafast", value: w.meanShares.ultrafast },
    { name: "Gigabit (1,000 Mbit/s)", short: "Gigabit", value: w.meanShares.gigabit },
    { name: "Unable to get decent", short: "No decent", value: w.meanShares.noDecent },
  ];
  const values = shares.map((s) => s.value ?? 0);
  const pct = meanShareText;
  const intro = paragraph(
    `${n(w.postcodes)} postcode${w.postcodes === 1 ? " has" : "s have"} no broadband figures from the API yet (pending, failed or not found); ` +
      `Ofcom's postcode files (data of ${o.month}, ${o.premises === "all" ? "all premises" : "residential premises"}) list ${n(w.inOpenData)} of them. These are shares of premises per postcode, ` +
      `averaged over those postcodes; they are not added to the API's per-address figures above.`,
  );
  const chart = figure({
    id: "open-data-shares",
    title: "Postcodes without API figures: mean share of premises (Ofcom's postcode files)",
    reading: `On average ${pct(w.meanShares.superfast)} of a postcode's premises can get superfast broadband and ${pct(w.meanShares.gigabit)} gigabit.`,
    chart:
      w.inOpenData === 0
        ? null
        : barChart({
            title: "Mean share of premises per postcode",
            categories: shares.map((s) => s.short),
            series: [{ name: "Mean share of premises (%)", values, labels: shares.map((s) => pct(s.value)), colour: PALETTE[1] }],
            orientation: "horizontal",
            valueAxis: "% of premises",
          }),
    empty: "None of these postcodes is in Ofcom's postcode files.",
    table: table({
      caption: `Means over ${n(w.inOpenData)} postcodes without API figures (Ofcom's postcode files, ${o.month})`,
      columns: ["Figure", "Mean share of premises"],
      rows: shares.map((s) => ({ header: s.name, cells: [pct(s.value)] })),
    }),
  });
  const counts = table({
    caption: "Postcodes by Ofcom's postcode files",
    columns: ["Postcodes", "Count"],
    rows: [
      { header: "Without API broadband figures", cells: [n(w.postcodes)] },
      { header: "… listed in Ofcom's files", cells: [n(w.inOpenData)] },
      { header: "… every premises can get gigabit", cells: [n(w.allGigabit)] },
      { header: "… premises in more than one speed band", cells: [n(w.multiBand)] },
      { header: "With both Ofcom's figures and the API's (open-data-vs-api.csv)", cells: [n(o.crossCheck.postcodes)] },
      { header: `… superfast shares more than ${o.crossCheck.points} points apart`, cells: [n(o.crossCheck.differing)] },
    ],
  });
  return section("open-data", title, intro + chart + counts + paragraph(o.attribution, "meta"));
}
