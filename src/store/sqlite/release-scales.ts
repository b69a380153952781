// Each mobile release's rating scale, recorded with the release from the ratings its stored answers
// hold (spec/mobile-scales.ts decides; store/sql/scale-sql.ts counts).
import { scaleOfRatings } from "../../spec/mobile-scales.js";
import type { StoredScale } from "../store.js";
import { ALL_MOBILE_POSTCODES, recordScaleSql, scaleEvidenceSql } from "../sql/scale-sql.js";
import type { Db } from "./db.js";

export function recordReleaseScales(db: Db, providers: readonly string[]): StoredScale[] {
  if (providers.length === 0) return [];
  const rows = db.prepare(scaleEvidenceSql(ALL_MOBILE_POSTCODES, providers)).all() as { release: string | null; ratings: number; legacy: number }[];
  const scales = rows.map((r) => ({ release: r.release, ratings: r.ratings, legacyRatings: r.legacy, scale: scaleOfRatings({ legacyRatings: r.legacy }) }));
  const update = db.prepare(recordScaleSql(() => "?"));
  db.transaction(() => {
    for (const s of scales) if (s.release !== null) update.run(s.scale, s.ratings, s.legacyRatings, s.release);
  })();
  return scales;
}
