// The groups' figures by a different path from the reports' SQL: plain JavaScript over every
// stored row (read through the store: helpers/stored.ts), from the definitions in docs/reports.md.
// Used by the groups and workbook tests.
import type { Store } from "../../src/store/store.js";
import { storedInputRows, storedTable } from "./stored.js";

type Row = Record<string, number | string | null>;

export interface ExpectedDimension {
  name: string;
  /** the group of an input row, from its cells and compact postcode (null when invalid); "" or missing → (blank) */
  valueOf: (cells: string[], postcode: string | null) => string | undefined;
}

export interface Expected {
  dimension: string;
  group: string;
  inputRows: number;
  postcodes: number;
  /** null (empty) when none of the group's postcodes has an answer that found it, of either lookup */
  addresses: number | null;
  broadbandAddresses: number | null;
  mobileAddresses: number | null;
  /** each count null when none of the group's postcodes has an answer of the lookup that found it */
  broadband: Record<string, number | null>;
  mobile: Record<string, number | null>;
}

/** The tier's counts of one address, as the definitions nest them. */
export function broadbandCounts(down: number | null, up: number | null): Record<string, number> {
  const d = down ?? -1;
  const u = up ?? -1;
  const data = d >= 0;
  return {
    BelowDecent: data && d < 30 && !(d >= 10 && u >= 1) ? 1 : 0,
    BelowSuperfast: data && d < 30 ? 1 : 0,
    Superfast: d >= 30 ? 1 : 0,
    Ultrafast: d >= 300 ? 1 : 0,
    Gigabit: d >= 1000 ? 1 : 0,
    NoData: data ? 0 : 1,
  };
}

export function mobileCounts(a: Row, providers: string[], good: number): Record<string, number> {
  const spread = (field: string) => {
    const goodOnes = providers.filter((p) => (a[`${p}${field}`] as number) >= good).length;
    return [goodOnes === 0 ? 1 : 0, goodOnes > 0 && goodOnes < providers.length ? 1 : 0];
  };
  const [vt, vp] = spread("VoiceIndoor");
  const [dt, dp] = spread("DataIndoor");
  const out: Record<string, number> = { IndoorVoiceTotalNotspots: vt!, IndoorVoicePartialNotspots: vp!, IndoorDataTotalNotspots: dt!, IndoorDataPartialNotspots: dp! };
  for (const p of providers) {
    out[`${p}IndoorVoiceNotspots`] = (a[`${p}VoiceIndoor`] as number) < good ? 1 : 0;
    out[`${p}IndoorDataNotspots`] = (a[`${p}DataIndoor`] as number) < good ? 1 : 0;
  }
  return out;
}

const add = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};

/** Expected groups.csv rows, in its order: dimensions as given, groups by name with the bracketed ones last. */
export async function independentGroups(store: Store, runId: number, good: number, dimensions: ExpectedDimension[]): Promise<Expected[]> {
  const providers = JSON.parse((await storedTable(store, "runs")).find((r) => r.id === runId)!.providers as string) as string[];
  const rows = (await storedInputRows(store, runId)).map(([, , postcode, , cells]) => ({ postcode, cells }));
  const bb = await storedTable(store, "broadband");
  const mb = await storedTable(store, "mobile");
  // a lookup's figures have an answer behind them: one that found the postcode, or a failed
  // refresh's kept addresses; without one they are unknown, empty
  const lookups = await storedTable(store, "postcodes");
  const found = (lookup: string, addresses: Row[]) =>
    new Set([...lookups.filter((l) => l.lookup === lookup && l.status === "ok").map((l) => l.postcode as string), ...addresses.map((a) => a.postcode as string)]);
  const foundB = found("broadband", bb);
  const foundM = found("mobile", mb);
  const unknown = (counts: Record<string, number>) => Object.fromEntries(Object.keys(counts).map((k) => [k, null]));
  const zeroB = broadbandCounts(null, null);
  for (const k of Object.keys(zeroB)) zeroB[k] = 0;
  const zeroM = Object.fromEntries(Object.keys(mobileCounts({}, providers, good)).map((k) => [k, 0]));
  const out: Expected[] = [];
  for (const d of dimensions) {
    const groups = new Map<string, { rows: number; postcodes: Set<string> }>();
    for (const r of rows) {
      const postcode = r.postcode as string | null;
      const value = d.valueOf(JSON.parse(r.cells) as string[], postcode)?.trim() || "(blank)";
      const g = groups.get(value) ?? { rows: 0, postcodes: new Set<string>() };
      g.rows++;
      if (postcode !== null) g.postcodes.add(postcode);
      groups.set(value, g);
    }
    const bracketed = (g: string) => ["(blank)", "(unmatched)", "(invalid postcode)"].includes(g);
    const names = [...groups.keys()].sort((a, b) => Number(bracketed(a)) - Number(bracketed(b)) || (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      const g = groups.get(name)!;
      const gb = bb.filter((a) => g.postcodes.has(a.postcode as string));
      const gm = mb.filter((a) => g.postcodes.has(a.postcode as string));
      const broadband = { ...zeroB };
      for (const a of gb) add(broadband, broadbandCounts(a.MaxPredictedDown as number | null, a.MaxPredictedUp as number | null));
      const mobile = { ...zeroM };
      for (const a of gm) add(mobile, mobileCounts(a, providers, good));
      const either = new Set([...gb, ...gm].map((a) => `${a.postcode}/${a.UPRN}`));
      const knownB = [...g.postcodes].some((p) => foundB.has(p));
      const knownM = [...g.postcodes].some((p) => foundM.has(p));
      out.push({
        dimension: d.name,
        group: name,
        inputRows: g.rows,
        postcodes: g.postcodes.size,
        addresses: knownB || knownM ? either.size : null,
        broadbandAddresses: knownB ? gb.length : null,
        mobileAddresses: knownM ? gm.length : null,
        broadband: knownB ? broadband : unknown(broadband),
        mobile: knownM ? mobile : unknown(mobile),
      });
    }
  }
  return out;
}

const TIER_NAMES: [string, string][] = [["Gigabit", "Gigabit"], ["Ultrafast", "Ultrafast"], ["Superfast", "Superfast"], ["BelowDecent", "Below decent"], ["NoData", "No data"]];

/** What --uprn-column's Property columns should hold for a row, from the stored addresses (CSV text). */
export async function expectedProperty(store: Store, postcode: string, uprn: string, providers: string[], good: number): Promise<Record<string, string>> {
  const key = /^\d+$/.test(uprn.trim()) ? uprn.trim() : "-1";
  const at = (a: Row) => a.postcode === postcode && String(a.UPRN) === key;
  const b = (await storedTable(store, "broadband")).find(at) as Record<string, number> | undefined;
  const m = (await storedTable(store, "mobile")).find(at) as Record<string, number> | undefined;
  const out: Record<string, string> = {};
  out.PropertyMaxPredictedDown = b ? String(b.MaxPredictedDown) : "";
  out.PropertyMaxPredictedUp = b ? String(b.MaxPredictedUp) : "";
  const c = b ? broadbandCounts(b.MaxPredictedDown!, b.MaxPredictedUp!) : null;
  out.PropertyTier = c ? (TIER_NAMES.find(([k]) => c[k] === 1)?.[1] ?? "Decent") : "";
  let best = "";
  let bestKey = -1;
  for (const p of providers) {
    out[`Property${p}IndoorVoiceGood`] = m ? (m[`${p}VoiceIndoor`]! >= good ? "yes" : "no") : "";
    out[`Property${p}IndoorDataGood`] = m ? (m[`${p}DataIndoor`]! >= good ? "yes" : "no") : "";
    // only a provider good indoors (data or voice) can be the best: none good, no best
    if (m && (m[`${p}DataIndoor`]! >= good || m[`${p}VoiceIndoor`]! >= good)) {
      const k = m[`${p}DataIndoor`]! * 10 + m[`${p}VoiceIndoor`]!;
      if (k > bestKey) [best, bestKey] = [p, k];
      else if (k === bestKey) best += `, ${p}`;
    }
  }
  out.PropertyBestProviderIndoors = best;
  return out;
}
