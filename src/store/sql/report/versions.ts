// Changes (changes.csv): each answer's latest version against its baseline version. The pairs are
// streamed; the latest version's rows are the address tables' (read once a batch, per column set),
// an older one carries its own as JSON in answer_versions.content.
import type { Lookup } from "../../../contract/fields.js";
import { LOOKUP_SPECS } from "../../../contract/lookups.js";
import { providersOfKey } from "../../provider-key.js";
import { valueFields } from "../../shared/versions.js";
import type { Baseline, Cell, RowBatches, VersionPair, VersionRow, VersionSide } from "../../snapshot.js";
import type { SqlSession } from "../session.js";

export interface VersionScope {
  runId: number | null;
  lookups: readonly Lookup[];
}

const sourceSql = (scope: VersionScope) =>
  scope.runId === null ? "SELECT DISTINCT postcode FROM lookups" : "SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL";
const lookupsSql = (scope: VersionScope) => scope.lookups.map((l) => `'${l}'`).join(", ") || "''";

type Status = "ok" | "not_found";
type Side = [status: Status, release: string, providers: string | null, content: string | null];
type PairRow = [postcode: string, lookup: Lookup, ...after: Side, ...before: Side];

/**
 * The rows of the latest answers a batch of pairs needs (ok, no content of their own), sorted by
 * UPRN, keyed by postcode, lookup and providers: one read per column set, not one per pair.
 */
async function latestRows(q: SqlSession, pairs: readonly PairRow[]): Promise<Map<string, VersionRow[]>> {
  const wanted = new Map<string, { lookup: Lookup; providers: string | null; postcodes: Set<string> }>();
  for (const [postcode, lookup, ...sides] of pairs)
    for (const [status, , providers, content] of [sides.slice(0, 4), sides.slice(4)] as Side[])
      if (status === "ok" && content === null) {
        const set = `${lookup}\n${providers}`;
        if (!wanted.has(set)) wanted.set(set, { lookup, providers, postcodes: new Set() });
        wanted.get(set)!.postcodes.add(postcode);
      }
  const rows = new Map<string, VersionRow[]>();
  for (const [set, { lookup, providers, postcodes }] of wanted) {
    const columns = ["uprn", "address", ...valueFields(lookup, providers)].map((c, i) => `${c} AS v${i}`);
    const names = [...postcodes].map((_, i) => `@p${i}`).join(", ");
    const params = Object.fromEntries([...postcodes].map((p, i) => [`p${i}`, p]));
    for (const p of postcodes) rows.set(`${p}\n${set}`, []);
    const found = await q.all<Record<string, Cell>>(`SELECT postcode AS k, ${columns.join(", ")} FROM ${LOOKUP_SPECS[lookup].table} WHERE postcode IN (${names}) ORDER BY postcode, uprn`, params);
    for (const { k, ...values } of found) rows.get(`${k}\n${set}`)!.push(Object.values(values) as VersionRow);
  }
  return rows;
}

/**
 * For each postcode of the scope (a run's input, or every stored one) and lookup whose latest
 * version is not its baseline version: both versions' rows. Postcodes without a baseline version
 * (first fetched after it), or whose baseline is simulated and latest real (or the reverse), have
 * nothing to compare and are left out.
 */
export async function* changedVersions(q: SqlSession, scope: VersionScope, baseline: Baseline): RowBatches<VersionPair> {
  const condition = baseline.kind === "previous" ? "x.id < a.id" : baseline.kind === "date" ? "x.first_seen < @before" : "x.run_id <= @baselineRun";
  const sql = `SELECT s.postcode, l.lookup, a.status, a.release, a.providers, a.content, b.status, b.release, b.providers, b.content
       FROM (${sourceSql(scope)}) s
       JOIN lookups l ON l.postcode = s.postcode
       JOIN answer_versions a ON a.id = l.version_id
       JOIN answer_versions b ON b.id = (SELECT MAX(x.id) FROM answer_versions x WHERE x.postcode = l.postcode AND x.lookup = l.lookup AND ${condition})
      WHERE b.id <> a.id AND a.simulated = b.simulated AND l.lookup IN (${lookupsSql(scope)})`;
  const params = {
    ...(scope.runId === null ? {} : { runId: scope.runId }),
    ...(baseline.kind === "date" ? { before: baseline.before } : baseline.kind === "run" ? { baselineRun: baseline.runId } : {}),
  };
  for await (const batch of q.stream(sql, params) as AsyncIterable<PairRow[]>) {
    const latest = await latestRows(q, batch);
    yield batch.map(([postcode, lookup, ...sides]) => {
      const side = ([status, release, providers, content]: Side): VersionSide => ({
        status,
        release,
        providers: providersOfKey(providers),
        fields: valueFields(lookup, providers),
        // the latest version's rows are the address tables'; older ones carry theirs
        rows: content === null ? (status === "ok" ? latest.get(`${postcode}\n${lookup}\n${providers}`)! : []) : (JSON.parse(content) as VersionRow[]),
      });
      return { postcode, lookup, before: side(sides.slice(4) as Side), after: side(sides.slice(0, 4) as Side) };
    });
  }
}

/** Whether any latest answer in scope has an earlier version or was fetched again (last seen after first seen): false on a list's first run. */
export async function anyAnswerCompared(q: SqlSession, scope: VersionScope): Promise<boolean> {
  const found = await q.get<{ found: unknown }>(
    `SELECT EXISTS (SELECT 1 FROM (${sourceSql(scope)}) s
                      JOIN lookups l ON l.postcode = s.postcode AND l.lookup IN (${lookupsSql(scope)})
                      JOIN answer_versions a ON a.id = l.version_id
                     WHERE a.last_seen > a.first_seen
                        OR EXISTS (SELECT 1 FROM answer_versions x WHERE x.postcode = l.postcode AND x.lookup = l.lookup AND x.id < a.id)) AS found`,
    scope.runId === null ? {} : { runId: scope.runId },
  );
  return q.dialect.asCell(found?.found) === 1;
}

/** Whether the run is recorded: `--since RUN` names one. */
export async function runExists(q: SqlSession, runId: number): Promise<boolean> {
  return (await q.get("SELECT 1 AS found FROM runs WHERE id = @runId", { runId })) !== null;
}
