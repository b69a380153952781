// What `npm run status` says of releases: per lookup, each release with the answers confirmed on
// it and the versions first seen in it, and how much of the last run's input is on the newest.
import { LOOKUPS, type Lookup } from "../../spec/fields.js";
import { tableExists, type Db } from "./db.js";

export interface LookupReleases {
  lookup: Lookup;
  releases: { name: string; detected_at: string; answers: number; versions: number }[];
  newest: string | null;
  /** the last run's unique input postcodes, and how many of them have an answer confirmed on the newest release */
  input: { runId: number; postcodes: number; onNewest: number } | null;
}

export function releaseStatus(db: Db): LookupReleases[] {
  // status opens read-only and never migrates: a database from before history has no releases
  if (!tableExists(db, "releases")) return [];
  const releases = db.prepare(
    `SELECT r.name, r.detected_at,
            (SELECT COUNT(*) FROM lookups l WHERE l.lookup = r.lookup AND l.release = r.name) AS answers,
            (SELECT COUNT(*) FROM answer_versions v WHERE v.lookup = r.lookup AND v.release = r.name) AS versions
       FROM releases r WHERE r.lookup = ? ORDER BY r.id`,
  );
  const lastRun = db.prepare("SELECT MAX(run_id) FROM run_rows").pluck().get() as number | null;
  const input = db.prepare(
    `SELECT COUNT(*) AS postcodes, COUNT(CASE WHEN l.release = @newest THEN 1 END) AS onNewest
       FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL) r
       LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = @lookup`,
  );
  return LOOKUPS.map((lookup) => {
    const list = releases.all(lookup) as LookupReleases["releases"];
    const newest = list.at(-1)?.name ?? null;
    return {
      lookup,
      releases: list,
      newest,
      input: lastRun === null ? null : { runId: lastRun, ...(input.get({ newest, runId: lastRun, lookup }) as { postcodes: number; onNewest: number }) },
    };
  }).filter((l) => l.releases.length > 0);
}

export function formatReleaseStatus(list: readonly LookupReleases[]): string {
  if (list.length === 0) return "";
  const lines = ["", "releases (oldest first; answers: confirmed on it now, versions: first seen in it):"];
  for (const l of list) {
    for (const r of l.releases)
      lines.push(`  ${l.lookup} ${r.name}: ${r.answers} answers, ${r.versions} versions (first seen ${r.detected_at})${r.name === l.newest ? "  [newest]" : ""}`);
    if (l.input) {
      const share = l.input.postcodes === 0 ? "-" : `${((100 * l.input.onNewest) / l.input.postcodes).toFixed(1)}%`;
      lines.push(`  ${l.lookup}: ${l.input.onNewest} of run ${l.input.runId}'s ${l.input.postcodes} postcodes on the newest release (${share})`);
    }
  }
  return lines.join("\n") + "\n";
}
