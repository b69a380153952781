// Figures per group ("where"): for each dimension named by --group-by (an input column, a column
// of --area-file, or the postcode's area, district or sector) and each of its values, the input
// rows, postcodes and addresses, and the summary's broadband and mobile counts with their shares.
// A postcode counts once per group however many input rows name it, and in every group that
// names it. The snapshot sums them (prepareGroups, groupTotals), streamed in order; this names the
// dimensions, the figures and their shares.
import { MOBILE_SCALES, scaleReadingWords, type MobileJudging, type MobileScale, type ScaleDecision } from "../../contract/mobile-scales.js";
import { LOOKUPS, type Lookup } from "../../contract/fields.js";
import { BLANK_GROUP, INVALID_GROUP, UNMATCHED_GROUP, type GroupDimension, type ReportSnapshot, type RowBatches } from "../../store/snapshot.js";
import { naturalOrder } from "../../figures/name-order.js";
import { BROADBAND_FIGURES, BROADBAND_LABELS, providerLabel, shareFraction, spreadLabel } from "../words/figure-labels.js";
import { providerColumn, SPREAD_METRICS } from "../../figures/measures.js";
import { loadAreaFile, readAreaHeader, type AreaFile, type AreaLoad } from "./area-file.js";
import { ADDRESSES_COLUMN, SCALE_ADDRESSES_COLUMN } from "../../figures/postcode-columns.js";
import { ReportError, type ReportScope } from "../set/scope.js";
import { mapRows } from "../set/row-batches.js";
import { areaCellCollector, scopePostcodes } from "./group-domains.js";
import { DEFAULT_GROUP_BY } from "./group-by.js";
import { POSTCODE_DIMENSIONS, type Dimension, type GroupFigure, type GroupRow, type PostcodeDimension } from "./types.js";
export { POSTCODE_DIMENSIONS, type Dimension, type GroupFigure, type GroupRow, type PostcodeDimension } from "./types.js";

export { BLANK_GROUP, INVALID_GROUP, UNMATCHED_GROUP } from "../../store/snapshot.js";

/** The counts every group row carries, in order: broadband, then mobile (across providers, then each provider). */
export function groupFigures(providers: readonly string[], judging: MobileJudging): GroupFigure[] {
  const short: Record<string, string> = {
    BelowDecent: "Below decent",
    BelowSuperfast: "Below superfast",
    // nested: an address at ultrafast is counted at superfast too, so the headings say "at least"
    Superfast: "At least superfast",
    Ultrafast: "At least ultrafast",
    Gigabit: "Gigabit",
    NoData: "No broadband data",
    IndoorVoiceTotalNotspots: "Indoor voice total notspots",
    IndoorVoicePartialNotspots: "Indoor voice partial notspots",
    IndoorDataTotalNotspots: "Indoor data total notspots",
    IndoorDataPartialNotspots: "Indoor data partial notspots",
  };
  return [
    ...BROADBAND_FIGURES.map((f) => ({ column: f, heading: short[f]!, label: BROADBAND_LABELS[f], lookup: "broadband" as const })),
    ...SPREAD_METRICS.map((m) => ({ column: m, heading: short[m]!, label: spreadLabel(m, judging), lookup: "mobile" as const })),
    ...providers.flatMap((p) =>
      (["IndoorVoiceNotspots", "IndoorDataNotspots"] as const).map((m) => ({
        column: providerColumn(p, m),
        heading: `${p} indoor ${m === "IndoorVoiceNotspots" ? "voice" : "data"} notspots`,
        label: providerLabel(p, m, judging),
        lookup: "mobile" as const,
      })),
    ),
  ];
}

/** The group's addresses with an answer of this lookup; null when the scope did not ask for it. */
function groupAddresses(row: GroupRow, lookup: Lookup): number | null {
  return row[`${lookup}Addresses`];
}

/** A figure's share of its lookup's addresses in the group (0–1); null without a denominator. */
export function groupShare(row: GroupRow, figure: GroupFigure): number | null {
  const count = row.counts[figure.column];
  const of = groupAddresses(row, figure.lookup);
  return count === null || count === undefined || of === null || of === 0 ? null : count / of;
}

/**
 * The dimensions --group-by names, in its order. A name is looked up as a postcode part first,
 * then as an input column, then as an area-file column (any case). The area-file columns named
 * are added to `wantedArea` (the columns loadAreaFile keeps); a dimension's index points there.
 */
export function resolveDimensions(groupBy: readonly string[], scope: ReportScope, area: AreaFile | null, wantedArea: string[] = []): Dimension[] {
  const find = (names: readonly string[], wanted: string) => names.findIndex((n) => n.toLowerCase() === wanted.toLowerCase());
  const out: Dimension[] = [];
  for (const raw of groupBy) {
    const wanted = raw.trim();
    if (wanted === "") continue;
    if ((POSTCODE_DIMENSIONS as readonly string[]).includes(wanted.toLowerCase())) {
      out.push({ name: wanted.toLowerCase(), source: "postcode", index: -1 });
      continue;
    }
    const input = find(scope.inputColumns, wanted);
    if (input >= 0) {
      out.push({ name: scope.inputColumns[input]!, source: "input", index: input });
      continue;
    }
    const inArea = area ? find(area.columns, wanted) : -1;
    if (area && inArea >= 0) {
      const name = area.columns[inArea]!;
      if (!wantedArea.includes(name)) wantedArea.push(name);
      out.push({ name, source: "area-file", index: wantedArea.indexOf(name) });
      continue;
    }
    const available = [...POSTCODE_DIMENSIONS, ...scope.inputColumns, ...(area?.columns ?? [])].map((c) => JSON.stringify(c)).join(", ");
    throw new ReportError(
      `--group-by ${JSON.stringify(wanted)}: no such column${scope.kind === "all" ? " (a report of all stored postcodes has no input columns)" : ""}; the names available are ${available}`,
    );
  }
  return out;
}

/** The dimension as the snapshot groups by it. */
function groupDimension(d: Dimension): GroupDimension {
  return d.source === "postcode" ? { source: "postcode", part: d.name as PostcodeDimension, index: -1 } : { source: d.source, index: d.index };
}

/**
 * The group rows, dimension by dimension in --group-by order, groups sorted by name with the
 * bracketed ones, e.g. (blank), last. Streams in batches. Needs prepareGroups.
 */
export function computeGroups(snapshot: ReportSnapshot, dimensions: readonly Dimension[], figures: readonly GroupFigure[], withScales = false): RowBatches<GroupRow> {
  const requested = (l: Lookup) => snapshot.scope.lookups.includes(l);
  const scaleColumns = withScales ? MOBILE_SCALES.map((s) => SCALE_ADDRESSES_COLUMN[s]) : [];
  return mapRows(snapshot.groupTotals([...figures.map((f) => f.column), ...scaleColumns]), (r) => ({
    dimension: dimensions[r.dimension]!.name,
    group: r.group,
    inputRows: r.inputRows,
    postcodes: r.postcodes,
    addresses: r.addresses,
    broadbandAddresses: requested("broadband") ? r.broadbandAddresses : null,
    mobileAddresses: requested("mobile") ? r.mobileAddresses : null,
    counts: Object.fromEntries(figures.map((f) => [f.column, requested(f.lookup) ? (r.counts[f.column] ?? null) : null])),
    ...(withScales ? { scaleAddresses: Object.fromEntries(MOBILE_SCALES.map((s) => [s, r.counts[SCALE_ADDRESSES_COLUMN[s]] ?? 0])) as Record<MobileScale, number> } : {}),
  }));
}

/** Columns said only when the mobile figures combine two scales or --mobile-scale forces one: how they read the answers, and the addresses on each scale. */
export const GROUP_SCALE_COLUMNS = ["MobileScaleReading", ...MOBILE_SCALES.map((s) => SCALE_ADDRESSES_COLUMN[s])] as const;

export function groupScaleHeader(groups: GroupSet): string[] {
  return groups.scaleReading === null ? [] : [...GROUP_SCALE_COLUMNS];
}

export function groupScaleCells(groups: GroupSet, row: GroupRow): unknown[] {
  if (groups.scaleReading === null) return [];
  return [groups.scaleReading, ...MOBILE_SCALES.map((s) => row.scaleAddresses?.[s] ?? 0)];
}

/** groups.csv's header: the fixed columns, then each figure's count and share. */
export function groupsHeader(figures: readonly GroupFigure[]): string[] {
  return [
    "Dimension",
    "Group",
    "InputRows",
    "Postcodes",
    "Addresses",
    ...LOOKUPS.flatMap((l) => [ADDRESSES_COLUMN[l], ...figures.filter((f) => f.lookup === l).flatMap((f) => [f.column, `${f.column}Share`])]),
  ];
}

export function groupCells(row: GroupRow, figures: readonly GroupFigure[]): unknown[] {
  const of = (l: Lookup) => groupAddresses(row, l);
  const cells = (l: Lookup) =>
    figures.filter((f) => f.lookup === l).flatMap((f) => {
      const count = row.counts[f.column] ?? null;
      // a share as a fraction of 1, as every column named Share
      const total = of(l);
      return [count, count === null || total === null || total === 0 ? null : shareFraction(count, total)];
    });
  return [row.dimension, row.group, row.inputRows, row.postcodes, row.addresses, ...LOOKUPS.flatMap((l) => [of(l), ...cells(l)])];
}

/** What the reports need to write the groups: the dimensions, the figures and (with --area-file) what was matched. */
export interface GroupSet {
  dimensions: Dimension[];
  figures: GroupFigure[];
  area: (AreaLoad & { path: string }) | null;
  /** every group's figures, computed once for groups.csv, the workbook and report.html (a few thousand rows at most) */
  rows: GroupRow[];
  /** how the mobile figures read the answers, when they combine two scales or --mobile-scale forces one; null otherwise */
  scaleReading: string | null;
  /** with --area-file, the kept cells of each postcode in scope (group-domains.ts: the groups' estimates) */
  areaCells: ReadonlyMap<string, readonly string[]> | null;
}


export interface GroupOptions {
  /** --group-by: dimension names; default DEFAULT_GROUP_BY; empty for no groups */
  groupBy?: readonly string[] | undefined;
  /** --area-file: a CSV of postcodes and their areas */
  areaFile?: string | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

/**
 * Reads --area-file (when given), resolves --group-by and fills the group table; null when no
 * dimension is asked for. Needs the snapshot's postcode figures (preparePostcodes).
 */
export async function prepareGroups(snapshot: ReportSnapshot, judging: MobileJudging, options: GroupOptions, scale: Pick<ScaleDecision, "scale" | "reading">): Promise<GroupSet | null> {
  const scope = snapshot.scope;
  const header = options.areaFile ? await readAreaHeader(options.areaFile) : null;
  const wantedArea: string[] = [];
  const dimensions = resolveDimensions(options.groupBy ?? DEFAULT_GROUP_BY, scope, header, wantedArea);
  let area: GroupSet["area"] = null;
  let areaCells: GroupSet["areaCells"] = null;
  if (header) {
    const kept = wantedArea.length > 0 ? areaCellCollector(await scopePostcodes(snapshot)) : null;
    area = { ...(await loadAreaFile(snapshot, header, wantedArea, undefined, kept?.keep)), path: header.path };
    areaCells = kept?.cells ?? null;
    if (area.unmatched > 0)
      options.onWarning?.(
        `${area.unmatched.toLocaleString("en-GB")} of ${(area.matched + area.unmatched).toLocaleString("en-GB")} postcodes are not in --area-file ${header.path}: their groups are ${UNMATCHED_GROUP}`,
      );
  }
  if (dimensions.length === 0) return null;
  await snapshot.prepareGroups(dimensions.map(groupDimension));
  const figures = groupFigures(scope.providers, judging);
  const scaleReading = scope.lookups.includes("mobile") ? scaleReadingWords(scale) : null;
  const rows: GroupRow[] = [];
  for await (const batch of computeGroups(snapshot, dimensions, figures, scaleReading !== null)) rows.push(...batch);
  return { dimensions, figures, area, rows: inGroupOrder(rows, dimensions), areaCells, scaleReading };
}

/** The groups in --group-by order, each dimension's names in natural order (LS2 before LS10), the bracketed ones, e.g. (blank), last. */
export function inGroupOrder(rows: GroupRow[], dimensions: readonly Dimension[]): GroupRow[] {
  const place = new Map(dimensions.map((d, i) => [d.name, i]));
  const bracketed = (g: string) => Number(g === BLANK_GROUP || g === UNMATCHED_GROUP || g === INVALID_GROUP);
  return rows.sort((a, b) => place.get(a.dimension)! - place.get(b.dimension)! || bracketed(a.group) - bracketed(b.group) || naturalOrder(a.group, b.group));
}
