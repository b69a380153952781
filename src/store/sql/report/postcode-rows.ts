// The postcode table's first fill, the same SQL on every engine: each postcode in scope with each
// lookup's status, its figures zero where an answer found it and empty otherwise, then one status
// per postcode. `@runId` is the scope's run (for a run's scope).
import type { Lookup } from "../../../contract/fields.js";
import { ADDRESSES_COLUMN, countColumns } from "../../../figures/postcode-columns.js";
import type { ReportScope } from "../../snapshot.js";

export function postcodeRowsSql(scope: ReportScope, table: string, displayPostcode: (column: string) => string): { insert: string; status: string } {
  const counts = countColumns(scope.providers);
  const source =
    scope.kind === "run"
      ? "SELECT DISTINCT postcode AS p FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL"
      : "SELECT postcode AS p FROM lookups UNION SELECT postcode FROM run_rows WHERE postcode IS NOT NULL";
  const requested = (l: Lookup) => scope.lookups.includes(l);
  // An answer the run needed but did not fetch (run_needs) is pending, not the older answer's status.
  const unfetched = (l: Lookup, alias: string) =>
    scope.kind === "run"
      ? `WHEN ${alias}.run_id IS DISTINCT FROM @runId AND EXISTS (SELECT 1 FROM run_needs n WHERE n.run_id = @runId AND n.lookup = '${l}' AND n.postcode = s.p) THEN 'pending' `
      : "";
  // No answer, but one expired (retention): expired, awaiting refresh, not pending; also when
  // every attempt since failed (a failure without an answer of its own: no version).
  const expired = (l: Lookup, alias: string) =>
    `WHEN (${alias}.status IS NULL OR (${alias}.status = 'failed' AND ${alias}.version_id IS NULL)) AND EXISTS (SELECT 1 FROM expired_answers e WHERE e.postcode = s.p AND e.lookup = '${l}') THEN 'expired' `;
  const status = (l: Lookup, alias: string) =>
    requested(l) ? `(CASE ${expired(l, alias)}${unfetched(l, alias)}WHEN ${alias}.status IS NULL THEN 'pending' ELSE ${alias}.status END)` : "'not_requested'";
  // Figures start at 0 where a stored answer found the postcode (one without addresses has none of
  // anything); the counts then add its addresses, and a failed refresh's kept answer's. Without an
  // answer behind them (never answered, expired, failed, not found, not requested) they stay
  // empty: unknown is never 0.
  const zeroed = (l: Lookup) => [ADDRESSES_COLUMN[l], ...counts[l]];
  const zeroes = (l: Lookup, alias: string) => zeroed(l).map(() => (requested(l) ? `(CASE WHEN ${alias}.status = 'ok' THEN 0 END)` : "NULL"));
  return {
    insert: `INSERT INTO ${table} (display, postcode, BroadbandStatus, MobileStatus, ${[...zeroed("broadband"), ...zeroed("mobile")].join(", ")})
     SELECT ${displayPostcode("s.p")}, s.p, ${status("broadband", "lb")}, ${status("mobile", "lm")},
            ${[...zeroes("broadband", "lb"), ...zeroes("mobile", "lm")].join(", ")}
       FROM (${source}) s
       LEFT JOIN lookups lb ON lb.postcode = s.p AND lb.lookup = 'broadband'
       LEFT JOIN lookups lm ON lm.postcode = s.p AND lm.lookup = 'mobile'`,
    // One status per postcode: a failure or a missing answer outweighs any success.
    status: `UPDATE ${table} SET Status = CASE
       WHEN 'failed' IN (BroadbandStatus, MobileStatus) THEN 'failed'
       WHEN 'pending' IN (BroadbandStatus, MobileStatus) THEN 'pending'
       WHEN 'expired' IN (BroadbandStatus, MobileStatus) THEN 'expired'
       WHEN 'ok' IN (BroadbandStatus, MobileStatus) THEN 'ok'
       ELSE 'not_found' END`,
  };
}
