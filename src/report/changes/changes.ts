// The changes (changes.csv's rows: csv/changes-file.ts) and the summary's `changes` section: per
// address, what moved between an answer's baseline version (its previous one, or the one current
// at --since DATE|RUN) and its latest: the broadband tier, a provider's rating across the good
// line, an address added or removed.
import { CHANNELS, LOCATIONS, mobileField, type Channel, type Location, type Lookup } from "../../contract/fields.js";
import { displayPostcode } from "../../contract/postcode.js";
import type { Baseline, ReportSnapshot, VersionPair, VersionRow } from "../../store/snapshot.js";
import { tierOf, TIERS, type Tier } from "../../figures/definitions.js";
import { ReportError, type ReportScope } from "../set/scope.js";
import type { ChangesSummary } from "./changes-summary.js";
import { LEGACY_ONLY_RATINGS, scaleOfRatings, type MobileScale, type ScaleChange, type ScaleDecision } from "../../contract/mobile-scales.js";

export type { ChangesSummary } from "./changes-summary.js";

export interface Change {
  /** display form, SW1A 2AA */
  postcode: string;
  uprn: number;
  address: string;
  lookup: Lookup;
  /** tier | <Prov> indoor voice | ... | address added | address removed */
  change: string;
  before: string | number | null;
  after: string | number | null;
  beforeRelease: string;
  afterRelease: string;
}

export interface ChangeSet {
  baseline: string;
  lookups: Lookup[];
  providers: string[];
  rows: Change[];
  summary: ChangesSummary;
  /** false when no answer had anything to compare with yet (a first run, against its previous versions) */
  compared: boolean;
  /** the first pair of versions found on different mobile scales; null when none */
  scaleChange: ScaleChange | null;
}

/** --since: a run id (digits) or an ISO date or time; the baseline is the versions current then. */
export async function parseSince(snapshot: ReportSnapshot, since: string | undefined): Promise<{ baseline: Baseline; label: string }> {
  if (since === undefined) return { baseline: { kind: "previous" }, label: "previous version" };
  if (/^\d{1,15}$/.test(since)) {
    const runId = Number(since);
    if (!(await snapshot.runExists(runId))) throw new ReportError(`--since: there is no run ${since} in the database (npm run status lists them)`);
    return { baseline: { kind: "run", runId }, label: `since run ${since}` };
  }
  const time = Date.parse(since);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(time))
    throw new ReportError(`--since: "${since.slice(0, 40)}" is neither a run id nor a date (YYYY-MM-DD or an ISO time)`);
  return { baseline: { kind: "date", before: new Date(time).toISOString() }, label: `since ${since}` };
}

/** Binary order, as SQLite sorts the other reports. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const rank = (t: Tier) => TIERS.indexOf(t);
const channelName = (c: Channel, l: Location) => `${l.toLowerCase()} ${c.toLowerCase()}` as const;
const flowKey = (c: Channel, l: Location) => `${l.toLowerCase()}${c}` as "indoorVoice" | "indoorData" | "outdoorVoice" | "outdoorData";

/** Every change of the scope's addresses against the baseline, in PostCode, UPRN order. */
export async function collectChanges(
  snapshot: ReportSnapshot,
  options: { goodOn: Readonly<Record<MobileScale, number>>; since?: string | undefined; scale?: ScaleDecision | undefined },
): Promise<ChangeSet> {
  const scope = snapshot.scope;
  const { baseline, label } = await parseSince(snapshot, options.since);
  const summary = emptySummary(label, scope);
  const rows: Change[] = [];
  const context: DiffContext = {
    goodOn: options.goodOn,
    forced: options.scale?.reading === "forced",
    providers: scope.providers,
    // a baseline's release may be outside the scope: its scale as recorded over all its answers
    scales: new Map([
      ...(await snapshot.recordedScaleEvidence()).map((r) => [r.release ?? "", scaleOfRatings(r)] as const),
      ...(options.scale?.releases ?? []).map((r) => [r.release ?? "", r.scale] as const),
    ]),
    scaleChange: null,
  };
  for await (const pairs of snapshot.changedVersions(baseline)) for (const pair of pairs) diffPair(pair, context, rows, summary);
  rows.sort((a, b) => compare(a.postcode, b.postcode) || a.uprn - b.uprn || compare(a.lookup, b.lookup) || compare(a.change, b.change));
  const compared = baseline.kind !== "previous" || rows.length > 0 || (await snapshot.anyAnswerCompared());
  return { baseline: label, lookups: scope.lookups, providers: scope.providers, rows, summary, compared, scaleChange: context.scaleChange };
}

function emptySummary(baseline: string, scope: ReportScope): ChangesSummary {
  const flow = () => ({ closed: 0, opened: 0 });
  return {
    baseline,
    broadband: scope.lookups.includes("broadband")
      ? {
          upATier: 0,
          downATier: 0,
          tiers: Object.fromEntries(TIERS.map((t) => [t, { gained: 0, lost: 0 }])) as Record<Tier, { gained: number; lost: number }>,
          addressesAdded: 0,
          addressesRemoved: 0,
        }
      : null,
    mobile: scope.lookups.includes("mobile")
      ? {
          providers: Object.fromEntries(
            scope.providers.map((p) => [p, { indoorVoice: flow(), indoorData: flow(), outdoorVoice: flow(), outdoorData: flow() }]),
          ),
          total: { indoorVoice: flow(), indoorData: flow() },
          addressesAdded: 0,
          addressesRemoved: 0,
        }
      : null,
  };
}

function diffPair(pair: VersionPair, context: DiffContext, out: Change[], summary: ChangesSummary): void {
  const before = new Map(pair.before.rows.map((r) => [r[0], r]));
  const after = new Map(pair.after.rows.map((r) => [r[0], r]));
  const base = (uprn: number, address: string) => ({
    postcode: displayPostcode(pair.postcode),
    uprn,
    address,
    lookup: pair.lookup,
    beforeRelease: pair.before.release,
    afterRelease: pair.after.release,
  });
  const counts = summary[pair.lookup];
  for (const [uprn, b] of before)
    if (!after.has(uprn)) {
      out.push({ ...base(uprn, b[1]), change: "address removed", before: null, after: null });
      if (counts) counts.addressesRemoved++;
    }
  for (const [uprn, a] of after) {
    const b = before.get(uprn);
    if (!b) {
      out.push({ ...base(uprn, a[1]), change: "address added", before: null, after: null });
      if (counts) counts.addressesAdded++;
    } else DIFFS[pair.lookup](pair, b, a, context, base(uprn, a[1]), out, summary);
  }
}

type Base = Omit<Change, "change" | "before" | "after">;

function value(side: VersionPair["before"], row: VersionRow, field: string): number | null {
  const i = side.fields.indexOf(field);
  return i < 0 ? null : ((row[2 + i] as number | null | undefined) ?? null);
}

/** What a pair's comparison needs besides its rows: the good rating on each scale and the providers of the report. */
interface DiffContext {
  goodOn: Readonly<Record<MobileScale, number>>;
  /** --mobile-scale: every side read on the forced scale */
  forced: boolean;
  providers: readonly string[];
  /** each mobile release's scale, as the report decided it from the release's ratings */
  scales: ReadonlyMap<string, MobileScale>;
  /** set at the first pair found on two scales */
  scaleChange: ScaleChange | null;
}

/** A side's scale: its release's, else what its own ratings show (a 1 or 2 is legacy). */
function sideScale(side: VersionPair["before"], scales: DiffContext["scales"]): MobileScale {
  const known = scales.get(side.release);
  if (known) return known;
  return side.rows.some((r) => r.slice(2).some((v) => typeof v === "number" && LEGACY_ONLY_RATINGS.includes(v))) ? "legacy" : "current";
}

/**
 * The good line of each side: each read on its own release's scale (both on the forced one under
 * --mobile-scale); `scaleMoved` marks what crosses the line between two scales as a change of scale.
 */
function goodLines(pair: VersionPair, context: DiffContext): { before: number; after: number; scaleMoved: boolean } {
  const { goodOn, scales } = context;
  if (context.forced) return { before: goodOn.current, after: goodOn.current, scaleMoved: false };
  const was = sideScale(pair.before, scales);
  const now = sideScale(pair.after, scales);
  if (was !== now) context.scaleChange ??= { from: { release: pair.before.release, scale: was }, to: { release: pair.after.release, scale: now } };
  return { before: goodOn[was], after: goodOn[now], scaleMoved: was !== now };
}

type Diff = (pair: VersionPair, b: VersionRow, a: VersionRow, context: DiffContext, base: Base, out: Change[], summary: ChangesSummary) => void;

function diffBroadband(pair: VersionPair, b: VersionRow, a: VersionRow, _context: DiffContext, base: Base, out: Change[], summary: ChangesSummary): void {
  const tier = (side: VersionPair["before"], row: VersionRow) => tierOf(value(side, row, "MaxPredictedDown"), value(side, row, "MaxPredictedUp"));
  const was = tier(pair.before, b);
  const now = tier(pair.after, a);
  if (was === now) return;
  out.push({ ...base, change: "tier", before: was, after: now });
  const s = summary.broadband;
  if (!s) return;
  s.tiers[was].lost++;
  s.tiers[now].gained++;
  // "No data" is no step on the ladder: moving to or from it is neither up nor down.
  if (was !== "No data" && now !== "No data") {
    if (rank(now) < rank(was)) s.upATier++;
    else s.downATier++;
  }
}

function diffMobile(pair: VersionPair, b: VersionRow, a: VersionRow, context: DiffContext, base: Base, out: Change[], summary: ChangesSummary): void {
  // Only providers both versions rate can be compared.
  const compared = context.providers.filter((p) => pair.before.providers.includes(p) && pair.after.providers.includes(p));
  const lines = goodLines(pair, context);
  const s = lines.scaleMoved ? null : summary.mobile;
  for (const l of LOCATIONS)
    for (const c of CHANNELS) {
      let anyGoodBefore = false;
      let anyGoodAfter = false;
      for (const p of compared) {
        const field = mobileField(p, c, l);
        const was = value(pair.before, b, field);
        const now = value(pair.after, a, field);
        if (was === null || now === null) continue;
        anyGoodBefore ||= was >= lines.before;
        anyGoodAfter ||= now >= lines.after;
        if (was >= lines.before === now >= lines.after) continue;
        // a row the change of scale moved is no coverage lost or gained: it says so, and is not counted as one
        out.push({ ...base, change: `${p} ${channelName(c, l)}${lines.scaleMoved ? " (change of scale)" : ""}`, before: was, after: now });
        const flow = s?.providers[p]?.[flowKey(c, l)];
        if (flow) {
          if (now >= lines.after) flow.closed++;
          else flow.opened++;
        }
      }
      if (l === "Indoor" && s && compared.length > 0 && anyGoodBefore !== anyGoodAfter) {
        const total = s.total[flowKey(c, l) as "indoorVoice" | "indoorData"];
        if (anyGoodAfter) total.closed++;
        else total.opened++;
      }
    }
}

/** Per lookup, what counts as a change of one address: a broadband tier, a provider's good coverage. */
const DIFFS: Record<Lookup, Diff> = { broadband: diffBroadband, mobile: diffMobile };
