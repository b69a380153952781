// 3. Where: the list's postcodes as hexagons on a map of Great Britain (or of the part the list
// covers), coloured by the share of addresses below superfast, and a second map by the share with
// no provider good for indoor voice. Inline SVG, no script: every hexagon has a <title> with its
// figures, which a browser shows on hover; the table beside each map is its legend with the numbers.
import { SPEED_THRESHOLDS as T } from "../../../figures/definitions.js";
import { figure, paragraph, section } from "../figure.js";
import { escapeHtml, formatCount, formatCounted, formatShare } from "../format.js";
import type { MapBin, MapLayout } from "../map/layout.js";
import { hexagonPath } from "../map/layout.js";
import { INK, OUTLINE, PALETTE } from "../palette.js";
import { table } from "../tables.js";
import type { MapData } from "../types.js";
import { answeredOnlyLabel, answeredOnlySentence } from "../../words/answered-only.js";

const n = formatCount;

/** The colour classes, by the share of the bin's addresses affected: [from, to) in percent; the last includes 100. */
export const MAP_CLASSES: readonly { from: number; to: number; colour: string }[] = [
  { from: 0, to: 10, colour: PALETTE[0] },
  { from: 10, to: 25, colour: PALETTE[1] },
  { from: 25, to: 50, colour: PALETTE[2] },
  { from: 50, to: 75, colour: PALETTE[3] },
  { from: 75, to: 100, colour: PALETTE[4] },
];
const NO_ADDRESSES = "#ffffff";

/** The class of `count` of `of` (of > 0), compared exactly: 10 of 100 is in 10–25%. */
export function mapClass(count: number, of: number): number {
  let k = 0;
  MAP_CLASSES.forEach((c, i) => {
    if (count * 100 >= c.from * of) k = i;
  });
  return k;
}

const classLabel = (i: number) => {
  const c = MAP_CLASSES[i]!;
  return i === MAP_CLASSES.length - 1 ? `${c.from}–${c.to}%` : `${c.from}–<${c.to}%`;
};

interface MapMeasure {
  slug: string;
  title: string;
  /** what the share is of, and what it counts */
  of: string;
  what: string;
  /** what the affected addresses are, as a sentence's verb phrase */
  are: string;
  /** the lookup's name, as the legend says which postcodes have its answers */
  lookup: string;
  /** the bin's postcodes with addresses in the lookup's answers: what its colour is counted from */
  answered: (b: MapBin) => number;
  count: (b: MapBin) => number;
  addresses: (b: MapBin) => number;
}

const MEASURES = {
  broadband: {
    slug: "map-below-superfast",
    title: `Broadband: share of addresses below superfast (under ${T.superfast} Mbit/s down)`,
    of: "broadband addresses",
    what: "below superfast",
    are: "are below superfast",
    lookup: "broadband",
    answered: (b) => b.broadbandAnswered,
    count: (b) => b.belowSuperfast,
    addresses: (b) => b.broadbandAddresses,
  },
  mobile: {
    slug: "map-voice-notspots",
    title: "Indoor mobile: share of addresses where no provider is good for indoor voice",
    of: "mobile addresses",
    what: "with no provider good indoors",
    are: "have no provider good for indoor voice",
    lookup: "mobile",
    answered: (b) => b.mobileAnswered,
    count: (b) => b.voiceNotspots,
    addresses: (b) => b.mobileAddresses,
  },
} satisfies Record<string, MapMeasure>;

/** "412 of the 5,000 postcodes on the map have broadband addresses in their answers": what the colours are counted from. */
export function answeredOnMap(layout: MapLayout, m: Pick<MapMeasure, "answered" | "lookup">): string {
  const { shown, answered } = answeredCounts(layout, m);
  return `${n(answered)} of the ${formatCounted(shown, "postcode")} on the map ${answered === 1 ? "has" : "have"} ${m.lookup} addresses in ${answered === 1 ? "its answer" : "their answers"}; the colours come from ${answered === 1 ? "it" : "them"} alone`;
}

function answeredCounts(layout: MapLayout, m: Pick<MapMeasure, "answered">): { shown: number; answered: number } {
  return { shown: layout.bins.reduce((s, b) => s + b.postcodes, 0), answered: layout.bins.reduce((s, b) => s + m.answered(b), 0) };
}

/** The legend's own line, short enough for the map's width: "Colours from 412 of the 5,000 postcodes shown (those with broadband addresses)". */
function legendAnswered(layout: MapLayout, m: Pick<MapMeasure, "answered" | "lookup">): string {
  const { shown, answered } = answeredCounts(layout, m);
  return `Colours from ${n(answered)} of the ${formatCounted(shown, "postcode")} shown (those with ${m.lookup} addresses)`;
}

/** `partial`: some of the list's postcodes are unanswered, so the maps' figures are the answered ones' alone. */
export function mapSection(data: MapData, lookups: { broadband: boolean; mobile: boolean }, title: string, partial = false): string {
  const missing =
    data.missing === 0
      ? ""
      : paragraph(
          data.located === 0
            ? `None of the ${formatCounted(data.missing, "postcode")} has coordinates, so there is no map. Give --area-file an extract of the ONS Postcode Directory (or any CSV with postcode, lat and long columns) to place them.`
            : `${formatCounted(data.missing, "postcode")} of ${n(data.missing + data.located)} ${data.missing === 1 ? "is" : "are"} not on the map: not in --area-file, or it has no grid reference for ${data.missing === 1 ? "it" : "them"}.`,
          data.located === 0 ? "empty" : undefined,
        );
  if (!data.layout) return section("map", title, missing);
  const layout = data.layout;
  const shown = [lookups.broadband ? MEASURES.broadband : null, lookups.mobile ? MEASURES.mobile : null].filter((m): m is MapMeasure => m !== null);
  const answered = shown.map((m) => `${n(answeredCounts(layout, m).answered)} with ${m.lookup} addresses`).join(", ");
  const intro = paragraph(
    `${formatCounted(data.located, "postcode")} on the map${answered ? ` (${answered}: the colours come from those)` : ""}, in hexagons ${layout.acrossKm < 10 ? layout.acrossKm.toFixed(1) : Math.round(layout.acrossKm)} km across; hover over a hexagon for its figures. Coastline and borders: Natural Earth.`,
  );
  const maps = shown.map((m) => mapFigure(layout, m, partial));
  return section("map", title, MAP_CSS + missing + intro + maps.join(""));
}

/**
 * The maps' own rules, kept with them rather than in the page's stylesheet: sized like the charts
 * on screen, and small enough in print for the map and its table to share an A4 page.
 */
const MAP_CSS =
  "<style>.plot svg.map { display: block; max-width: 100%; height: auto; } " +
  "@media print { .plot svg.map { max-height: 150mm; width: auto; } }</style>";

function mapFigure(layout: MapLayout, m: MapMeasure, partial: boolean): string {
  const withAddresses = layout.bins.filter((b) => m.addresses(b) > 0);
  const total = withAddresses.reduce((s, b) => s + m.addresses(b), 0);
  const affected = withAddresses.reduce((s, b) => s + m.count(b), 0);
  const perClass = MAP_CLASSES.map(() => ({ bins: 0, postcodes: 0, addresses: 0, count: 0 }));
  for (const b of withAddresses) {
    const c = perClass[mapClass(m.count(b), m.addresses(b))]!;
    c.bins++;
    c.postcodes += b.postcodes;
    c.addresses += m.addresses(b);
    c.count += m.count(b);
  }
  const worst = [...withAddresses].sort((a, b) => m.count(b) * m.addresses(a) - m.count(a) * m.addresses(b) || m.count(b) - m.count(a))[0];
  return figure({
    id: m.slug,
    title: m.title,
    reading: answeredOnlySentence(
      `${answeredOnMap(layout, m)}. ${formatShare(affected, total)} of the ${n(total)} ${m.of} on the map ${m.are}; the darkest hexagons have the fewest, the lightest the most.${
        worst ? ` The highest share in one hexagon: ${formatShare(m.count(worst), m.addresses(worst))} of ${n(m.addresses(worst))}.` : ""
      }`,
      partial,
    ),
    chart: withAddresses.length === 0 ? null : mapSvg(layout, m),
    empty: `No postcode on the map has ${m.of}.`,
    table: table({
      caption: answeredOnlyLabel(`Hexagons by their share of ${m.of} ${m.what} (the map's legend; ${answeredOnMap(layout, m)})`, partial),
      columns: ["Share", "Hexagons", "Postcodes", "Addresses", m.what[0]!.toUpperCase() + m.what.slice(1)],
      rows: perClass.map((c, i) => ({ header: classLabel(i), cells: [n(c.bins), n(c.postcodes), n(c.addresses), n(c.count)] })),
      total: { header: "All", cells: [n(withAddresses.length), n(withAddresses.reduce((s, b) => s + b.postcodes, 0)), n(total), n(affected)] },
    }),
  });
}

const LEGEND_HEIGHT = 52;

/** The map's SVG: sea, land, hexagons with their titles, and the legend under the map. */
function mapSvg(layout: MapLayout, m: MapMeasure): string {
  const { width, height } = layout;
  const hexagon = hexagonPath(layout.radius);
  const bins = layout.bins
    .map((b) => {
      const of = m.addresses(b);
      const fill = of > 0 ? MAP_CLASSES[mapClass(m.count(b), of)]!.colour : NO_ADDRESSES;
      const tip =
        of > 0
          ? `${formatCounted(b.postcodes, "postcode")}, ${formatCounted(of, m.of.replace(/es$/, ""), m.of)}: ${formatShare(m.count(b), of)} ${m.what} (${n(m.count(b))})`
          : `${formatCounted(b.postcodes, "postcode")}, no ${m.of}`;
      return `<path d="M${b.x},${b.y}${hexagon}" fill="${fill}"><title>${escapeHtml(tip)}</title></path>`;
    })
    .join("");
  const legend = [...MAP_CLASSES.map((c, i) => ({ colour: c.colour, label: classLabel(i) })), { colour: NO_ADDRESSES, label: "no addresses" }]
    .map((item, i) => {
      const x = 8 + i * 84;
      return `<g class="legend-item"><rect x="${x}" y="${height + 10}" width="14" height="14" fill="${item.colour}" stroke="${OUTLINE}" stroke-width="0.6"/><text x="${x + 19}" y="${height + 21.5}">${escapeHtml(item.label)}</text></g>`;
    })
    .join("");
  return [
    `<svg class="map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height + LEGEND_HEIGHT}" width="${width}" height="${height + LEGEND_HEIGHT}" role="img" aria-label="${escapeHtml(m.title)}">`,
    `<rect width="${width}" height="${height}" fill="#e4edf3"/>`,
    `<path class="land" d="${layout.land}" fill="#f7f5f0" stroke="#8c8c8c" stroke-width="0.6"/>`,
    `<g class="bins" stroke="${OUTLINE}" stroke-width="0.5">${bins}</g>`,
    `<rect width="${width}" height="${height}" fill="none" stroke="${OUTLINE}" stroke-width="0.8"/>`,
    `<g class="legend" font-family="Helvetica, Arial, sans-serif" font-size="11" fill="${INK}">${legend}` +
      `<text class="legend-answered" x="8" y="${height + 43}">${escapeHtml(legendAnswered(layout, m))}</text></g>`,
    `</svg>`,
  ].join("");
}
