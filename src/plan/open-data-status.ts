// The figures of what `npm run status` says of Ofcom's open data (its words: cli/status-text.ts):
// the stored release, and (when the last run was given --open-data) how many of its input's
// postcodes still wait for a first broadband answer, by speed bands: those in more than one come
// first in the next nights.
import type { Store } from "../store/store.js";
import type { OpenDataImport } from "../store/types.js";
import { countByBands, type OpenDataBandCounts } from "./plan.js";

export interface OpenDataStatus {
  release: Omit<OpenDataImport, "fingerprint">;
  /** the last run's new broadband postcodes by bands; null when that run had no --open-data */
  newPostcodes: OpenDataBandCounts | null;
}

export async function openDataStatus(store: Store): Promise<OpenDataStatus | null> {
  const current = await store.openData.current();
  if (!current) return null;
  const { fingerprint: _fingerprint, ...release } = current;
  const last = await store.runs.lastSettings();
  if (!last || typeof last.args.openData !== "string") return { release, newPostcodes: null };
  const candidates = await store.plan.candidates({
    runId: last.runId,
    lookup: "broadband",
    // only the never-fetched state is counted: freshness does not matter here
    freshSince: last.startedAt,
    refreshSince: null,
    providers: last.providers,
    simulated: last.simulated,
    openData: last.args.openDataPremises === "residential" ? "residential" : "all",
  });
  return { release, newPostcodes: countByBands(candidates) };
}
