// What `npm run status` says of Ofcom's open data: the stored release, and (when the last run was
// given --open-data) how many of its input's postcodes still wait for a first broadband answer, by
// speed bands: those in more than one come first in the next nights.
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

export function formatOpenDataStatus(s: OpenDataStatus | null): string {
  if (!s) return "";
  const r = s.release;
  const lines = [
    "",
    `open data: Ofcom's postcode files of ${r.month} (r${r.revision}), ${r.postcodes} postcodes (all premises), ${r.residential} residential; imported ${r.importedAt} from ${r.source}`,
  ];
  if (s.newPostcodes) {
    const c = s.newPostcodes;
    lines.push(
      `  broadband: ${c.multiBand + c.singleBand + c.notListed} postcodes of the last input still without a first answer: ` +
        `${c.multiBand} in more than one speed band (first), ${c.singleBand} wholly in one, ${c.notListed} not listed`,
    );
  }
  return lines.join("\n") + "\n";
}
