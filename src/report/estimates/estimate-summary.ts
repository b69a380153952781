// summary.json's `estimates` and summary.csv's Estimates rows: the whole list's shares (and each
// group's) estimated from the postcodes answered so far (estimates.ts), beside the
// answered-only figures, never mixed into them. "Answered" is whatever the snapshot gives a final
// status (found or not found); pending and failed postcodes are the unanswered ones.
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import { BAND_COLUMNS } from "../../contract/open-data.js";
import type { Cell, ReportSnapshot } from "../../store/snapshot.js";
import { sampleStratum, STRATUM_SEPARATOR } from "../../plan/sample-order.js";
import { ADDRESSES_COLUMN, countColumns, STATUS_COLUMN } from "../../figures/postcode-columns.js";
import { correlationIn, estimateIn, sizeMomentsIn, type DomainEstimate, type Interval } from "./estimates.js";
import { ClusterTable, everySlot } from "./cluster-table.js";
import { PROVIDER_METRICS, providerColumn } from "../../figures/measures.js";
import { lowerFirst, providerLabel } from "../words/figure-labels.js";
import { byLocale, naturalOrder } from "../../figures/name-order.js";
import type { MobileJudging } from "../../contract/mobile-scales.js";
import { groupFigures } from "../groups/groups.js";
import type { GroupDomains, GroupsOf } from "../groups/group-domains.js";
import type { SummaryRow } from "../words/summary-row.js";
import { round4 } from "../words/estimate-words.js";
import type { EstimatedDomain, EstimatesSummary, GroupEstimate, LookupBasis } from "./types.js";
export type { EstimatedDomain, EstimatesSummary, GroupEstimate, LookupBasis } from "./types.js";
import { PackedDomain, ShareKeys } from "./packed-domain.js";
import { answeredBy, paceCapacity, type AnswerPace } from "../../plan/answer-pace.js";
import { largestPlanCapacity } from "../../plan/capacity.js";
import { capacityStatement } from "../../plan/capacity-words.js";
import { estimateCaveats, ESTIMATE_ASSUMPTION, MIN_ANSWERED_FOR_ESTIMATE, TOO_FEW_ANSWERED, type CaveatPostcode } from "./estimate-caveats.js";

const ANSWERED_STATUSES = new Set(["ok", "not_found"]);
/**
 * A postcode the figures count: answered, or a failed refresh whose earlier answer is kept (every
 * figure of the report counts its addresses, so the estimate and its answered-only figure do too).
 */
const counted = (status: Cell, addresses: Cell) => ANSWERED_STATUSES.has(String(status)) || (status === "failed" && Number(addresses ?? 0) > 0);


/** The list's postcodes (compact), and per lookup its figures: slot i of each table is postcodes[i]. */
interface ListFigures {
  postcodes: string[];
  tables: Partial<Record<Lookup, ClusterTable>>;
}

/**
 * A figure's key in `estimates.shares`: its count column, first letter lower case, a notspot count
 * named in the singular as a share reads ("belowSuperfast", "indoorVoiceTotalNotspot", "eeIndoorVoiceNotspot").
 */
export const estimateKey = (column: string) => lowerFirst(column).replace(/Notspots$/, "Notspot");

/** A postcode's sample stratum (before its band), as the planner drew it: the design's strata (sample-strata.ts). */
type StratumOf = (compact: string) => string;

async function readFigures(snapshot: ReportSnapshot, lookups: readonly Lookup[], counts: Record<Lookup, string[]>, stratumOf: StratumOf): Promise<ListFigures> {
  const bands = snapshot.scope.openData ? [...BAND_COLUMNS, AUXILIARY_COLUMN] : [];
  const columns = [...lookups.flatMap((l) => [STATUS_COLUMN[l], ADDRESSES_COLUMN[l], ...counts[l]]), ...bands];
  // sized to the scope at once: a table grown as rows come copies its arrays, and holds both for a while
  const { postcodes } = await snapshot.postcodeTotals([]);
  const tables = Object.fromEntries(lookups.map((l) => [l, new ClusterTable(counts[l].length, LOOKUP_SPECS[l].openData && bands.length > 0, Math.max(postcodes, 1))]));
  const figures: ListFigures = { postcodes: [], tables };
  const layout: RowLayout = { lookups, counts, bandsAt: 1 + columns.length - bands.length, bandCount: Math.max(0, bands.length - 1), openData: bands.length > 0 };
  for await (const batch of snapshot.postcodeRows(columns)) for (const row of batch) addPostcode(figures, row, layout, stratumOf);
  for (const table of Object.values(tables)) table.trim();
  return figures;
}

/**
 * Ofcom's superfast availability: with --open-data, the auxiliary of below superfast (estimates.ts
 * uses it where it narrows the interval). A postcode absent from Ofcom's files has no premises there: share 0.
 */
const AUXILIARY_COLUMN = "OfcomSuperfast";
const auxiliaryOf = (cell: Cell) => 1 - Number(cell ?? 100) / 100;

/** Where a postcode row's cells are: after the postcode, per lookup its status, addresses and counts; then Ofcom's bands and superfast share. */
interface RowLayout {
  lookups: readonly Lookup[];
  counts: Record<Lookup, string[]>;
  bandsAt: number;
  bandCount: number;
  openData: boolean;
}

function addPostcode(figures: ListFigures, row: readonly Cell[], { lookups, counts, bandsAt, bandCount, openData }: RowLayout, stratumOf: StratumOf): void {
  const postcode = String(row[0]).replace(/\s+/g, "").toUpperCase();
  // The planner fetches new postcodes Ofcom puts wholly in one speed band last: they are their own
  // strata (pooled with their district's others while none of them is answered: estimates.ts).
  const bands = row.slice(bandsAt, bandsAt + bandCount).filter((v) => Number(v ?? 0) > 0).length;
  const stratum = stratumOf(postcode) + (bandCount > 0 && bands === 1 ? `${STRATUM_SEPARATOR}single-band` : "");
  const below = openData ? auxiliaryOf(row[bandsAt + bandCount]!) : null;
  let at = 1;
  for (const l of lookups) {
    const answered = counted(row[at]!, row[at + 1]!);
    const first = at + 2;
    const auxiliary = (f: number) => (counts[l][f] === "BelowSuperfast" ? below : null);
    figures.tables[l]!.add(stratum, answered, answered ? Number(row[at + 1] ?? 0) : 0, (f) => (answered ? Number(row[first + f] ?? 0) : 0), auxiliary);
    at = first + counts[l].length;
  }
  figures.postcodes.push(postcode);
}

/**
 * Per lookup, what the list's answered postcodes tell its groups' intervals too: per figure the
 * intracluster correlation, and per stratum the size moment (estimates.ts: sizeMoments).
 */
type ListFacts = Partial<Record<Lookup, { rho: number[]; moments: Map<string, number> }>>;

function listFacts(figures: ListFigures, lookups: readonly Lookup[]): ListFacts {
  const members = everySlot(figures.postcodes.length);
  return Object.fromEntries(
    lookups.map((l) => {
      const list = { table: figures.tables[l]!, members };
      return [l, { rho: correlationIn(list), moments: sizeMomentsIn(list) }];
    }),
  );
}

/** A domain's estimate per lookup, and what a domain says of itself beside its shares. */
function estimateOf(figures: ListFigures, members: ArrayLike<number>, lookups: readonly Lookup[], list: ListFacts) {
  const perLookup = lookups.map((l) => [l, estimateIn({ table: figures.tables[l]!, members }, list[l]?.rho, list[l]?.moments)] as const);
  const facts: Omit<EstimatedDomain, "shares"> = {
    postcodes: members.length,
    answeredPostcodes: countAnsweredByAll(figures, members, lookups),
    answeredPerLookup: Object.fromEntries(perLookup.map(([l, e]) => [l, e.answeredPostcodes])),
    exact: perLookup.every(([, e]) => e.exact),
  };
  // in the keys' order (shareKeysOf): per lookup, its figures
  const shares = perLookup.flatMap(([, e]) => (tooFew(e) ? e.shares.map(() => NO_ESTIMATE) : e.shares));
  return { facts, shares, perLookup: perLookup as readonly (readonly [Lookup, DomainEstimate])[] };
}

/** The shares' keys, per lookup its count columns': the order estimateOf gives the shares in. */
const shareKeysOf = (lookups: readonly Lookup[], counts: Record<Lookup, string[]>) => new ShareKeys(lookups.flatMap((l) => counts[l].map(estimateKey)));

/** Whether the postcode in slot i is answered for every lookup. */
const answeredByAll = (figures: ListFigures, lookups: readonly Lookup[], i: number) => lookups.every((l) => figures.tables[l]!.answered[i] === 1);

function countAnsweredByAll(figures: ListFigures, members: ArrayLike<number>, lookups: readonly Lookup[]): number {
  let n = 0;
  for (let k = 0; k < members.length; k++) if (answeredByAll(figures, lookups, members[k]!)) n++;
  return n;
}

const NO_ESTIMATE: Interval = { estimate: null, low: null, high: null };
/** Fewer answered postcodes than an estimate needs (exact figures need none: every postcode is answered). */
export const tooFew = (e: Pick<DomainEstimate, "exact" | "answeredPostcodes">) => !e.exact && e.answeredPostcodes < MIN_ANSWERED_FOR_ESTIMATE;

/**
 * The strata the planner drew the sample in: the district, then the values of the --group-by input
 * columns (a postcode's first), then the sector when grouped by it. The report's --group-by is the
 * batch's when the batch writes it; with another, the strata are post-strata, as good while the
 * sample's allocation is proportional.
 */
function designStrata(domains: readonly GroupDomains[]): StratumOf {
  const parts = domains.filter((d) => d.source === "input" || d.name === "sector");
  return (compact) => sampleStratum(compact, parts.map((d) => d.groupsOf(compact)[0] ?? ""));
}

/** Each group's members (slots) among the list's postcodes, by group name sorted (a postcode may be in several). */
function membersByGroup(postcodes: readonly string[], groupsOf: GroupsOf): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  postcodes.forEach((postcode, i) => {
    for (const g of groupsOf(postcode)) {
      let members = groups.get(g);
      if (!members) groups.set(g, (members = []));
      members.push(i);
    }
  });
  return new Map([...groups].sort(([a], [b]) => naturalOrder(a, b, byLocale)));
}

/** The estimates of a report, for the list and each group of `domains`: null when the scope has no postcodes. Needs preparePostcodes. */
export async function computeEstimates(snapshot: ReportSnapshot, domains: readonly GroupDomains[], paces: Partial<Record<Lookup, AnswerPace>> = {}): Promise<EstimatesSummary | null> {
  const lookups = snapshot.scope.lookups;
  const counts = countColumns(snapshot.scope.providers);
  const figures = await readFigures(snapshot, lookups, counts, designStrata(domains));
  if (figures.postcodes.length === 0) return null;
  const list = listFacts(figures, lookups);
  const keys = shareKeysOf(lookups, counts);
  const { facts, shares, perLookup } = estimateOf(figures, everySlot(figures.postcodes.length), lookups, list);
  const domain: EstimatedDomain = { ...facts, shares: Object.fromEntries(keys.keys.map((key, i) => [key, shares[i]!])) };
  const groups: Record<string, Record<string, GroupEstimate>> = {};
  for (const { name, groupsOf } of domains) {
    groups[name] = {};
    for (const [value, members] of membersByGroup(figures.postcodes, groupsOf)) {
      const group = estimateOf(figures, members, lookups, list);
      groups[name][value] = new PackedDomain({ ...group.facts, shares: group.shares }, keys);
    }
  }
  const lookupFacts = Object.fromEntries(perLookup.map(([l, e]) => [l, lookupBasis(e, paces[l])]));
  // the caveats compare the unanswered postcodes with the answered: a list answered in full has none (nor its input's rows to read)
  const caveats = domain.answeredPostcodes === domain.postcodes ? [] : estimateCaveats(caveatPostcodes(figures, lookups, await inputRowsPerPostcode(snapshot)));
  const capacity = capacityStatement(domain.postcodes, Object.entries(lookupFacts) as [Lookup, LookupBasis][]);
  return { ...domain, lookups: lookupFacts, capacity, assumption: ESTIMATE_ASSUMPTION, caveats, groups };
}

function lookupBasis(e: DomainEstimate, pace: AnswerPace | undefined): LookupBasis {
  const unanswered = e.postcodes - e.answeredPostcodes;
  // without a known quota, only a list beyond the largest plan's capacity is known to exceed it
  const c = pace ? paceCapacity(pace, e.postcodes) : largestPlanCapacity(e.postcodes);
  return {
    answeredPostcodes: e.answeredPostcodes,
    answeredAddresses: e.answeredAddresses,
    exact: e.exact,
    unanswered,
    // a list beyond the capacity is never all answered at once: no date for the rest
    // the rehearsed nights' date (plan/night-promise.ts) when the store told one, else the quota's arithmetic
    answeredBy: pace && unanswered > 0 && !c?.exceeded ? (pace.answeredOn !== undefined ? pace.answeredOn : answeredBy(unanswered, pace)) : null,
    quota: pace ? { perPeriod: pace.quota, source: pace.source } : null,
    capacity: c ? { postcodes: c.postcodes, exceeded: c.exceeded, quotaNeeded: c.quotaNeeded } : null,
  };
}

/** The run's input rows per postcode (compact): the addresses each is expected to hold; null for --all. */
async function inputRowsPerPostcode(snapshot: ReportSnapshot): Promise<Map<string, number> | null> {
  if (snapshot.scope.kind !== "run") return null;
  const rows = new Map<string, number>();
  for await (const batch of snapshot.inputRows())
    for (const [, , postcode] of batch) {
      if (postcode === null) continue;
      const compact = postcode.replace(/\s+/g, "").toUpperCase();
      rows.set(compact, (rows.get(compact) ?? 0) + 1);
    }
  return rows;
}

/** The checks' view of each postcode: answered for every lookup, its addresses (the first lookup's), input rows and open data. */
function caveatPostcodes(figures: ListFigures, lookups: readonly Lookup[], rows: Map<string, number> | null): CaveatPostcode[] {
  const first = figures.tables[lookups[0]!]!;
  const broadband = figures.tables.broadband;
  return figures.postcodes.map((postcode, i) => ({
    answered: answeredByAll(figures, lookups, i),
    addresses: first.addresses[i]!,
    expected: rows ? (rows.get(postcode) ?? 0) : null,
    belowSuperfast: broadband ? knownAuxiliary(broadband, i) : null,
  }));
}

/** A postcode's auxiliary (Ofcom's below superfast), whichever figure it stands beside; null where unknown. */
function knownAuxiliary(table: ClusterTable, i: number): number | null {
  for (let f = 0; f < table.figures; f++) {
    const z = table.auxiliary?.[i * table.figures + f];
    if (z !== undefined && !Number.isNaN(z)) return z;
  }
  return null;
}

/** "estimated from 412 of 3,000 postcodes (95% interval)", or that the figures are exact. */
export function estimateBasis(e: Pick<EstimatedDomain, "answeredPostcodes" | "postcodes" | "exact">): string {
  return e.exact
    ? `exact: every one of ${e.postcodes.toLocaleString("en-GB")} postcodes answered`
    : `estimated from ${e.answeredPostcodes.toLocaleString("en-GB")} of ${e.postcodes.toLocaleString("en-GB")} postcodes (95% interval)`;
}

/** Each lookup's basis, "broadband: estimated from 61 of 288 postcodes (95% interval)": a lookup's figures stand on its own answers. */
export function lookupBases(e: Pick<EstimatesSummary, "lookups" | "postcodes">): string[] {
  return Object.entries(e.lookups).map(([l, f]) => `${l}: ${estimateBasis({ answeredPostcodes: f.answeredPostcodes, postcodes: e.postcodes, exact: f.exact })}`);
}

/** summary.csv's (and the workbook's Summary) Estimates rows: each lookup's answered postcodes, each share for the whole list as numbers, the assumption. */
export function estimateRows(e: EstimatesSummary | null | undefined, labels: Readonly<Record<string, string>>): SummaryRow[] {
  if (!e) return [];
  const section = "Estimates for the whole list";
  const basis = Object.entries(e.lookups).map(([l, f]): SummaryRow => ({
    section,
    figure: `${LOOKUP_SPECS[l as Lookup].label}: postcodes answered, what its estimates stand on`,
    count: f.answeredPostcodes,
    of: e.postcodes,
    ofWhat: "postcodes of the list",
  }));
  // a figure is exact once its own lookup has answered every postcode
  const broadbandKeys = new Set(countColumns([]).broadband.map(estimateKey));
  const kind = (key: string) => (e.lookups[broadbandKeys.has(key) ? "broadband" : "mobile"]?.exact ?? e.exact ? "exact: every postcode answered" : "estimate, with its 95% interval");
  const shares = Object.entries(e.shares).map(([key, i]): SummaryRow =>
    i.estimate === null
      ? { section, figure: `${labels[key] ?? key}, share of all the list's addresses`, count: TOO_FEW_ANSWERED, of: null, ofWhat: "" }
      : { section, figure: `${labels[key] ?? key}, share of all the list's addresses (${kind(key)})`, count: null, share: round4(i.estimate), low: round4(i.low), high: round4(i.high), of: null, ofWhat: "" },
  );
  const said = e.exact ? [] : [e.assumption, ...e.caveats].map((text, k): SummaryRow => ({ section, figure: k === 0 ? "Assumption" : "Caution", count: text, of: null, ofWhat: "" }));
  return [...basis, ...shares, ...said];
}

/** The figures' plain-English labels by their estimates key (the Groups figures' labels); without mobile figures the scale labels nothing. */
export function estimateLabels(providers: readonly string[], judging: MobileJudging): Record<string, string> {
  const providerLabels = providers.flatMap((p) => PROVIDER_METRICS.map((m) => [estimateKey(providerColumn(p, m)), providerLabel(p, m, judging)]));
  return Object.fromEntries([...groupFigures(providers, judging).map((f) => [estimateKey(f.column), f.label]), ...providerLabels]);
}
