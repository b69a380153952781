// 4. Groups: per dimension, the 20 groups with the largest share below superfast and the 20 with
// the largest share of indoor voice total notspots, ranked allowing for their size (ranking.ts).
import { SPEED_THRESHOLDS as T } from "../../../figures/definitions.js";
import { barChart } from "../charts.js";
import { figure, section } from "../figure.js";
import { formatCount, formatShare, shareValue } from "../format.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import type { GroupFigure, GroupRow } from "../types.js";
import { byLocale, naturalOrder } from "../../../figures/name-order.js";
import { groupShareInterval, rankingFigure, RANKING_WORDS } from "../../estimates/ranking.js";
import { answeredOnlyLabel, answeredOnlySentence } from "../../words/answered-only.js";

const n = formatCount;
export const WORST_GROUPS = 20;

interface Measure {
  key: "belowSuperfast" | "indoorVoiceTotalNotspots";
  slug: string;
  what: string;
  of: string;
  colour: string;
}

const MEASURES: readonly Measure[] = [
  { key: "belowSuperfast", slug: "below-superfast", what: `below superfast (under ${T.superfast} Mbit/s down)`, of: "broadband addresses", colour: PALETTE[4] },
  { key: "indoorVoiceTotalNotspots", slug: "voice-notspots", what: "with no provider good for indoor voice", of: "mobile addresses", colour: PALETTE[1] },
];

/** The `limit` groups ranked worst first by RANKING_WORDS (the low end of the share's 95% interval); ties by more addresses affected, then by name. */
export function worstGroups(rows: readonly GroupRow[], key: Measure["key"], limit = WORST_GROUPS): (GroupRow & Record<typeof key, GroupFigure>)[] {
  const rank = (f: GroupFigure) => rankingFigure(f.count, f.of)!;
  return rows
    .filter((r): r is GroupRow & Record<typeof key, GroupFigure> => r[key] !== null && r[key]!.of > 0)
    .map((r) => ({ r, rank: rank(r[key]) }))
    .sort((a, b) => b.rank - a.rank || b.r[key].count - a.r[key].count || naturalOrder(a.r.group, b.r.group, byLocale))
    .slice(0, limit)
    .map(({ r }) => r);
}

/** `partial`: some of the list's postcodes are unanswered, so the groups' shares are their answered postcodes' alone. */
export function groupsSection(rows: readonly GroupRow[], title: string, partial = false): string {
  const dimensions = [...new Set(rows.map((r) => r.dimension))];
  const content = dimensions
    .map((dimension) => {
      const inDimension = rows.filter((r) => r.dimension === dimension);
      return MEASURES.map((m) => groupFigure(dimension, inDimension, m, partial)).join("");
    })
    .join("");
  return section("groups", title, content);
}

/** "94.4%–97.1%": a group's share's 95% interval. */
function intervalWords(f: GroupFigure): string {
  const i = groupShareInterval(f.count, f.of);
  return i ? `${pct(i.low!)}–${pct(i.high!)}` : "–";
}
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function groupFigure(dimension: string, rows: readonly GroupRow[], m: Measure, partial: boolean): string {
  const worst = worstGroups(rows, m.key);
  const id = `groups-${dimension.replace(/[^A-Za-z0-9_-]/g, "_")}-${m.slug}`;
  const titled = `${dimension}: ${worst.length === WORST_GROUPS ? `the ${WORST_GROUPS} groups` : "groups"} with the largest share of addresses ${m.what}, allowing for size`;
  const first = worst[0];
  const affected = worst.some((r) => r[m.key].count > 0);
  return figure({
    id,
    title: titled,
    reading: first
      ? answeredOnlySentence(
          `Worst: ${first.group}, ${formatShare(first[m.key].count, first[m.key].of)} of its ${n(first[m.key].of)} ${m.of} (${n(first[m.key].count)}; 95% interval ${intervalWords(first[m.key])}). Groups are ${RANKING_WORDS}.`,
          partial,
        )
      : "",
    chart:
      !first || !affected
        ? null
        : barChart({
            title: titled,
            categories: worst.map((r) => r.group),
            series: [
              {
                name: "Share",
                values: worst.map((r) => shareValue(r[m.key].count, r[m.key].of)),
                labels: worst.map((r) => `${formatShare(r[m.key].count, r[m.key].of)} · ${n(r[m.key].count)} of ${n(r[m.key].of)}`),
                colour: m.colour,
              },
            ],
            orientation: "horizontal",
            valueAxis: `% of ${m.of}`,
            percent: true,
          }),
    empty: first ? `No ${dimension} group has addresses ${m.what}.` : `No ${dimension} group has ${m.of}.`,
    table: table({
      caption: answeredOnlyLabel(`${dimension}: addresses ${m.what}, of the group's ${m.of}; ${RANKING_WORDS}`, partial),
      columns: ["Group", "Addresses", `Of ${m.of}`, "Share", "95% interval"],
      rows: worst.map((r) => ({ header: r.group, cells: [n(r[m.key].count), n(r[m.key].of), formatShare(r[m.key].count, r[m.key].of), intervalWords(r[m.key])] })),
    }),
  });
}
