// Each mobile release's rating scale, recorded with the release (as sqlite/release-scales.ts).
import type pg from "pg";
import { scaleOfRatings } from "../../spec/mobile-scales.js";
import type { StoredScale } from "../store.js";
import { ALL_MOBILE_POSTCODES, recordScaleSql, scaleEvidenceSql } from "../sql/scale-sql.js";
import { rowsOf } from "./connect.js";
import { BYTE_ORDER } from "./dialect.js";

export async function recordReleaseScales(pool: pg.Pool, providers: readonly string[]): Promise<StoredScale[]> {
  if (providers.length === 0) return [];
  const rows = await rowsOf<{ release: string | null; ratings: string; legacy: string }>(pool, scaleEvidenceSql(ALL_MOBILE_POSTCODES, providers, ` ${BYTE_ORDER}`));
  const scales = rows.map((r) => ({ release: r.release, ratings: Number(r.ratings), legacyRatings: Number(r.legacy), scale: scaleOfRatings({ legacyRatings: Number(r.legacy) }) }));
  for (const s of scales) if (s.release !== null) await pool.query(recordScaleSql((i) => `$${i}`), [s.scale, s.ratings, s.legacyRatings, s.release]);
  return scales;
}
