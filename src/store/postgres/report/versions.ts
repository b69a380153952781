// Changes on PostgreSQL (changes.csv): each answer's latest version against its baseline version,
// as the SQLite engine's versions.ts compares them. The pairs come through a cursor; the latest
// version's rows are the address tables' (storedRows), an older one carries its own as JSON.
import type pg from "pg";
import type { Lookup } from "../../../spec/fields.js";
import { providersOfKey } from "../../provider-key.js";
import { valueFields } from "../../shared/versions.js";
import type { VersionRow } from "../../snapshot.js";
import type { Baseline, VersionPair, VersionSide } from "../../snapshot.js";
import { storedRows } from "../answers.js";
import { rowOf } from "../connect.js";
import { bind } from "./dialect.js";
import { cursorRows } from "./cursor.js";

export interface VersionScope {
  runId: number | null;
  lookups: readonly Lookup[];
}

const sourceSql = (scope: VersionScope) =>
  scope.runId === null ? "SELECT DISTINCT postcode FROM lookups" : "SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL";
const lookupsSql = (scope: VersionScope) => scope.lookups.map((l) => `'${l}'`).join(", ") || "''";

type Status = "ok" | "not_found";
type PairRow = [postcode: string, lookup: Lookup, ...side: [Status, string, string | null, string | null, Status, string, string | null, string | null]];

export async function* changedVersions(client: pg.PoolClient, scope: VersionScope, baseline: Baseline): AsyncGenerator<VersionPair[]> {
  const condition = baseline.kind === "previous" ? "x.id < a.id" : baseline.kind === "date" ? "x.first_seen < @before" : "x.run_id <= @baselineRun";
  const statement = bind(
    `SELECT s.postcode, l.lookup, a.status, a.release, a.providers, a.content, b.status, b.release, b.providers, b.content
       FROM (${sourceSql(scope)}) s
       JOIN lookups l ON l.postcode = s.postcode
       JOIN answer_versions a ON a.id = l.version_id
       JOIN answer_versions b ON b.id = (SELECT MAX(x.id) FROM answer_versions x WHERE x.postcode = l.postcode AND x.lookup = l.lookup AND ${condition})
      WHERE b.id <> a.id AND a.simulated = b.simulated AND l.lookup IN (${lookupsSql(scope)})`,
    {
      ...(scope.runId === null ? {} : { runId: scope.runId }),
      ...(baseline.kind === "date" ? { before: baseline.before } : baseline.kind === "run" ? { baselineRun: baseline.runId } : {}),
    },
  );
  for await (const batch of cursorRows(client, statement, (row) => row as PairRow)) {
    const pairs: VersionPair[] = [];
    for (const [postcode, lookup, afterStatus, afterRelease, afterProviders, afterContent, beforeStatus, beforeRelease, beforeProviders, beforeContent] of batch) {
      const side = async (status: Status, release: string, providers: string | null, content: string | null): Promise<VersionSide> => ({
        status,
        release,
        providers: providersOfKey(providers),
        fields: valueFields(lookup, providers),
        // the latest version's rows are the address tables'; older ones carry theirs
        rows: content === null ? (status === "ok" ? await storedRows(client, postcode, lookup, providers) : []) : (JSON.parse(content) as VersionRow[]),
      });
      pairs.push({
        postcode,
        lookup,
        before: await side(beforeStatus, beforeRelease, beforeProviders, beforeContent),
        after: await side(afterStatus, afterRelease, afterProviders, afterContent),
      });
    }
    yield pairs;
  }
}

/** Whether any latest answer in scope has an earlier version or was fetched again (last seen after first seen). */
export async function anyAnswerCompared(client: pg.PoolClient, scope: VersionScope): Promise<boolean> {
  const statement = bind(
    `SELECT EXISTS (SELECT 1 FROM (${sourceSql(scope)}) s
                      JOIN lookups l ON l.postcode = s.postcode AND l.lookup IN (${lookupsSql(scope)})
                      JOIN answer_versions a ON a.id = l.version_id
                     WHERE a.last_seen > a.first_seen
                        OR EXISTS (SELECT 1 FROM answer_versions x WHERE x.postcode = l.postcode AND x.lookup = l.lookup AND x.id < a.id)) AS found`,
    scope.runId === null ? {} : { runId: scope.runId },
  );
  return (await rowOf<{ found: boolean }>(client, statement.text, statement.values))?.found === true;
}
