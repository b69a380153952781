// What `npm run status` says of releases: per lookup, each release with the answers confirmed on
// it and the versions first seen in it, and how much of the last run's input is on the newest.
import { LOOKUPS } from "../../spec/fields.js";
import { tableExists, type Db } from "./db.js";
import type { LookupReleases } from "../types.js";
import { releaseScaleColumns } from "../shared/releases.js";

export type { LookupReleases } from "../types.js";

export function releaseStatus(db: Db): LookupReleases[] {
  // status opens read-only and never migrates: a database from before history has no releases
  if (!tableExists(db, "releases")) return [];
  const scaled = db.prepare("SELECT 1 FROM pragma_table_info('releases') WHERE name = 'scale'").get() !== undefined;
  const releases = db.prepare(
    `SELECT r.name, r.detected_at, ${releaseScaleColumns(scaled)},
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
