// What needs fetching: each of the run's postcodes, per lookup, that has no final answer yet,
// failed before, or whose answer is older than --max-age (everything, with --refresh).
import type { Lookup } from "../spec/fields.js";
import type { Db } from "../store/db.js";
import { providerKey } from "../store/answers.js";

export interface PlanOptions {
  runId: number;
  lookups: readonly Lookup[];
  /** answers fetched at or after this ISO time are fresh */
  freshSince: string;
  refresh: boolean;
  /** mobile provider prefixes of this run: a mobile answer that lacks one of them is refetched */
  providers: readonly string[];
  /** a simulated run never reuses real answers, nor a real run simulated ones */
  simulated: boolean;
}

export interface Plan {
  /** unique valid postcodes of the run's input */
  postcodes: number;
  /** per lookup, the postcodes to fetch, in input order */
  toFetch: Map<Lookup, string[]>;
  /** per lookup, how many already had a fresh final answer */
  reused: Map<Lookup, number>;
}

export function planFetches(db: Db, options: PlanOptions): Plan {
  const postcodes = (
    db.prepare("SELECT COUNT(DISTINCT postcode) AS n FROM run_rows WHERE run_id = ? AND postcode IS NOT NULL").get(options.runId) as {
      n: number;
    }
  ).n;
  // lookups.providers holds each provider between commas (providerKey); a NULL list lacks them all.
  const missingProvider = options.providers.map((_, i) => `IFNULL(instr(l.providers, @p${i}), 0) = 0`).join(" OR ");
  const providerParams = Object.fromEntries(options.providers.map((p, i) => [`p${i}`, providerKey([p])]));
  const select = db
    .prepare(
      `SELECT r.postcode
         FROM (SELECT postcode, MIN(line) AS first_line FROM run_rows
                WHERE run_id = @runId AND postcode IS NOT NULL GROUP BY postcode) r
         LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = @lookup
        WHERE @refresh = 1 OR l.postcode IS NULL OR l.status = 'failed' OR l.fetched_at < @freshSince
           OR l.simulated <> @simulated
           OR (l.lookup = 'mobile' AND l.status = 'ok' AND (${missingProvider}))
        ORDER BY r.first_line`,
    )
    .pluck();
  const toFetch = new Map<Lookup, string[]>();
  const reused = new Map<Lookup, number>();
  for (const lookup of options.lookups) {
    const list = select.all({
      runId: options.runId,
      lookup,
      refresh: options.refresh ? 1 : 0,
      freshSince: options.freshSince,
      simulated: options.simulated ? 1 : 0,
      ...providerParams,
    }) as string[];
    toFetch.set(lookup, list);
    reused.set(lookup, postcodes - list.length);
  }
  return { postcodes, toFetch, reused };
}
