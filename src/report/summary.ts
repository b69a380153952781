// The summary figures: sums over the report's postcode table (itself counted by SQLite from the
// addresses), and the two views of them, summary.csv rows and the batch's closing lines.
import type { OutcomeCounts } from "../spec/counts.js";
import type { Lookup } from "../spec/fields.js";
import type { Db } from "../store/db.js";
import { inputRowCounts } from "../store/run-rows.js";
import { countColumns, POSTCODE_TABLE, STATUS_COLUMN, ADDRESSES_COLUMN } from "./postcode-table.js";
import { PROVIDER_METRICS, providerColumn } from "./measures.js";
import type { ReportScope } from "./scope.js";
import { changesHeadline, changesRows, type ChangesSummary } from "./changes-summary.js";


export interface BroadbandSummary {
  postcodes: OutcomeCounts;
  addresses: number;
  noData: number;
  belowDecent: number;
  belowSuperfast: number;
  superfast: number;
  ultrafast: number;
  gigabit: number;
}

export type ProviderSummary = Record<
  "indoorVoiceNotspots" | "indoorDataNotspots" | "outdoorVoiceNotspots" | "outdoorDataNotspots" | "indoorDataNeeds4g",
  number
>;

export interface Spread {
  /** addresses where no provider is good */
  totalNotspots: number;
  /** addresses where at least one provider is good, but not all */
  partialNotspots: number;
}

export interface MobileSummary {
  postcodes: OutcomeCounts;
  addresses: number;
  providers: Record<string, ProviderSummary>;
  indoorVoice: Spread;
  indoorData: Spread;
}

export interface Summary {
  /** true when any figure comes from the bundled simulator, not the real API */
  simulated: boolean;
  generatedAt: string;
  /** the run reported; null for --all */
  runId: number | null;
  scope: "run" | "all";
  lookups: Lookup[];
  providers: string[];
  goodRating: number;
  /** input and invalid are rows of the run's input (null for --all); unique counts postcodes in scope */
  postcodes: { input: number | null; invalid: number | null; unique: number };
  /** null when the run did not ask for that lookup */
  broadband: BroadbandSummary | null;
  mobile: MobileSummary | null;
  /** what changed against each answer's previous version (or --since): changes.ts */
  changes: ChangesSummary | null;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

export function computeSummary(db: Db, scope: ReportScope, goodRating: number, generatedAt: string, changes: ChangesSummary | null = null): Summary {
  const counts = countColumns(scope.providers);
  const sums = (columns: string[]) => columns.map((c) => `COALESCE(SUM(${c}), 0) AS ${c}`).join(", ");
  const statuses = (l: Lookup) =>
    `COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'ok' THEN 1 END) AS ${l}_ok,
     COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'not_found' THEN 1 END) AS ${l}_not_found,
     COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'failed' THEN 1 END) AS ${l}_failed,
     COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'pending' THEN 1 END) AS ${l}_pending`;
  const row = db
    .prepare(
      `SELECT COUNT(*) AS unique_postcodes, ${statuses("broadband")}, ${statuses("mobile")},
              ${sums([ADDRESSES_COLUMN.broadband, ADDRESSES_COLUMN.mobile, ...counts.broadband, ...counts.mobile])}
         FROM ${POSTCODE_TABLE}`,
    )
    .get() as Record<string, number>;
  const postcodes = (l: Lookup): OutcomeCounts => ({
    ok: row[`${l}_ok`]!,
    notFound: row[`${l}_not_found`]!,
    failed: row[`${l}_failed`]!,
    pending: row[`${l}_pending`]!,
  });

  const input =
    scope.kind === "run"
      ? inputRowCounts(db, scope.runId)
      : { input: null, invalid: null };

  const requested = scope.lookups.map((l) => `'${l}'`).join(", ");
  const simulatedData = db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup IN (${requested})
                       WHERE l.simulated = 1)`,
    )
    .pluck()
    .get() as number;

  const broadband: BroadbandSummary | null = scope.lookups.includes("broadband")
    ? {
        postcodes: postcodes("broadband"),
        addresses: row[ADDRESSES_COLUMN.broadband]!,
        noData: row.NoData!,
        belowDecent: row.BelowDecent!,
        belowSuperfast: row.BelowSuperfast!,
        superfast: row.Superfast!,
        ultrafast: row.Ultrafast!,
        gigabit: row.Gigabit!,
      }
    : null;
  const mobile: MobileSummary | null = scope.lookups.includes("mobile")
    ? {
        postcodes: postcodes("mobile"),
        addresses: row[ADDRESSES_COLUMN.mobile]!,
        providers: Object.fromEntries(
          scope.providers.map((p) => [
            p,
            Object.fromEntries(PROVIDER_METRICS.map((m) => [lowerFirst(m), row[providerColumn(p, m)]!])) as ProviderSummary,
          ]),
        ),
        indoorVoice: { totalNotspots: row.IndoorVoiceTotalNotspots!, partialNotspots: row.IndoorVoicePartialNotspots! },
        indoorData: { totalNotspots: row.IndoorDataTotalNotspots!, partialNotspots: row.IndoorDataPartialNotspots! },
      }
    : null;

  return {
    simulated: (scope.kind === "run" && scope.runSimulated) || simulatedData === 1,
    generatedAt,
    runId: scope.kind === "run" ? scope.runId : null,
    scope: scope.kind,
    lookups: scope.lookups,
    providers: scope.providers,
    goodRating,
    postcodes: { input: input.input, invalid: input.invalid, unique: row.unique_postcodes! },
    broadband,
    mobile,
    changes,
  };
}

/** One row of summary.csv. */
export interface SummaryRow {
  section: string;
  metric: string;
  provider: string;
  value: number | string | boolean | null;
  outOf: number | null;
}

export const SUMMARY_HEADER = ["Section", "Metric", "Provider", "Value", "OutOf", "Percent"] as const;

/** Percent to one decimal place; empty without a denominator. */
export function percent(value: number, outOf: number | null): string {
  return outOf === null || outOf === 0 ? "" : ((100 * value) / outOf).toFixed(1);
}

/** summary.json flattened: metrics named by their path inside their section. */
export function summaryRows(s: Summary): SummaryRow[] {
  const rows: SummaryRow[] = [
    { section: "report", metric: "generatedAt", provider: "", value: s.generatedAt, outOf: null },
    { section: "report", metric: "runId", provider: "", value: s.runId ?? "all", outOf: null },
    { section: "report", metric: "simulated", provider: "", value: s.simulated, outOf: null },
    { section: "report", metric: "goodRating", provider: "", value: s.goodRating, outOf: null },
    { section: "postcodes", metric: "input", provider: "", value: s.postcodes.input, outOf: null },
    { section: "postcodes", metric: "invalid", provider: "", value: s.postcodes.invalid, outOf: s.postcodes.input },
    { section: "postcodes", metric: "unique", provider: "", value: s.postcodes.unique, outOf: null },
  ];
  const lookupRows = (section: Lookup, p: OutcomeCounts) =>
    (Object.keys(p) as (keyof OutcomeCounts)[]).map((k) => ({ section, metric: `postcodes.${k}`, provider: "", value: p[k], outOf: s.postcodes.unique }));
  if (s.broadband) {
    const b = s.broadband;
    rows.push(...lookupRows("broadband", b.postcodes), { section: "broadband", metric: "addresses", provider: "", value: b.addresses, outOf: null });
    for (const metric of ["noData", "belowDecent", "belowSuperfast", "superfast", "ultrafast", "gigabit"] as const)
      rows.push({ section: "broadband", metric, provider: "", value: b[metric], outOf: b.addresses });
  }
  if (s.mobile) {
    const m = s.mobile;
    rows.push(...lookupRows("mobile", m.postcodes), { section: "mobile", metric: "addresses", provider: "", value: m.addresses, outOf: null });
    for (const [provider, figures] of Object.entries(m.providers))
      for (const metric of Object.keys(figures) as (keyof ProviderSummary)[])
        rows.push({ section: "mobile", metric, provider, value: figures[metric], outOf: m.addresses });
    for (const channel of ["indoorVoice", "indoorData"] as const)
      for (const kind of ["totalNotspots", "partialNotspots"] as const)
        rows.push({ section: "mobile", metric: `${channel}.${kind}`, provider: "", value: m[channel][kind], outOf: m.addresses });
  }
  if (s.changes) rows.push(...changesRows(s.changes));
  return rows;
}

/** summary.csv's cells for one row. */
export function summaryCells(r: SummaryRow): unknown[] {
  return [r.section, r.metric, r.provider, r.value, r.outOf, typeof r.value === "number" ? percent(r.value, r.outOf) : ""];
}

const n = (x: number) => x.toLocaleString("en-GB");
const pc = (x: number, of: number) => (of === 0 ? "-" : `${percent(x, of)}%`);

/** The headline figures, a few lines for the end of a batch. */
export function headlineLines(s: Summary): string[] {
  const lines: string[] = [];
  const where = s.runId === null ? "all stored postcodes" : `run ${s.runId}`;
  lines.push(
    s.postcodes.input === null
      ? `report (${where}): ${n(s.postcodes.unique)} postcodes`
      : `report (${where}): ${n(s.postcodes.input)} input rows, ${n(s.postcodes.invalid ?? 0)} invalid, ${n(s.postcodes.unique)} unique postcodes`,
  );
  const answered = (p: OutcomeCounts) =>
    `${n(p.ok)} postcodes found, ${n(p.notFound)} not found, ${n(p.failed)} failed` + (p.pending > 0 ? `, ${n(p.pending)} pending` : "");
  if (s.broadband) {
    const b = s.broadband;
    lines.push(
      `broadband: ${n(b.addresses)} addresses (${answered(b.postcodes)}); below decent (10/1 Mbit/s) ${pc(b.belowDecent, b.addresses)}, ` +
        `below superfast ${pc(b.belowSuperfast, b.addresses)}, gigabit ${pc(b.gigabit, b.addresses)}, no data ${pc(b.noData, b.addresses)}`,
    );
  }
  if (s.mobile) {
    const m = s.mobile;
    lines.push(
      `mobile: ${n(m.addresses)} addresses (${answered(m.postcodes)}); indoor notspots (rating below ${s.goodRating}): ` +
        `voice ${pc(m.indoorVoice.totalNotspots, m.addresses)} with no good provider, ${pc(m.indoorVoice.partialNotspots, m.addresses)} with only some; ` +
        `data ${pc(m.indoorData.totalNotspots, m.addresses)} none, ${pc(m.indoorData.partialNotspots, m.addresses)} only some`,
    );
  }
  const changed = s.changes && changesHeadline(s.changes);
  if (changed) lines.push(changed);
  if (s.simulated) lines.push("these figures include SIMULATED data from the bundled simulator, not the real API");
  return lines;
}
