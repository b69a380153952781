// What `npm run status` reads, the same on every engine: the recent runs (a running one with its
// counts so far), the stored answers by lookup and status, a running batch's progress, and each
// lookup's releases. Each engine adds its schema version and its leases, and hides expired answers.
import { LOOKUPS, type Lookup } from "../../contract/fields.js";
import { LOOKUP_LIST, LOOKUP_SPECS } from "../../contract/lookups.js";
import type { DatabaseStatus, LookupReleases, RunningProgress, RunSummary } from "../types.js";
import type { Dialect } from "./dialect.js";
import { countsAsTheyStandSteps } from "./run-reads.js";
import { ALL_MOBILE_POSTCODES, scaleEvidenceSql, STORED_EVIDENCE } from "./scale-sql.js";
import { all, get, type Steps } from "./steps.js";

/** A running run's row holds its counts only at the end (its requests are checkpointed): what it has stored so far instead. */
function* withCountsSoFar(run: RunSummary, lookups: string): Steps<RunSummary> {
  let list: Lookup[];
  try {
    list = JSON.parse(lookups) as Lookup[];
  } catch {
    return run;
  }
  const c = yield* countsAsTheyStandSteps(run.id, list);
  return { ...run, input_rows: c.inputRows, postcodes: c.postcodes, rejects: c.rejects, ok: c.ok, not_found: c.notFound, failed: c.failed, pending: c.pending };
}

export type StoredFigures = Pick<DatabaseStatus, "runs" | "lookups" | "failures" | "postcodes" | "addresses" | "datasets">;

/** What a run its lease outlived left behind: the state `status` shows and the next batch records. */
export const ABANDONED_MESSAGE = "the process ended without finishing the run (killed?)";

/**
 * A run still marked running whose lease is not among the `live` ones (judged on the database's
 * clock) is shown as the next batch will record it: abandoned. A database older than leases keeps it running.
 */
function* judgedRunning(run: RunSummary, live: ReadonlySet<number>): Steps<RunSummary> {
  const row = yield* get<{ lease_id?: number | null }>("SELECT * FROM runs WHERE id = @id", { id: run.id });
  // a run recorded without a lease (none of a batch's) is left as it stands
  if (row?.lease_id === undefined || row.lease_id === null || live.has(row.lease_id)) return run;
  return { ...run, state: "abandoned", message: ABANDONED_MESSAGE };
}

/** The recent runs and the stored answers' figures: read with the expired answers hidden; `live`: the live leases' ids. */
export function* storedFiguresSteps(recentRuns: number, live: ReadonlySet<number>): Steps<StoredFigures> {
  const rows = yield* all<RunSummary & { lookups: string }>(
    `SELECT id, started_at, ended_at, state, exit_code, simulated, input_name, input_rows, postcodes, rejects,
            ok, not_found, failed, pending, requests, retries, throttled, message, lookups
       FROM runs ORDER BY id DESC LIMIT @recentRuns`,
    { recentRuns },
  );
  const runs: RunSummary[] = [];
  for (const { lookups, ...run } of rows) runs.push(run.state === "running" ? yield* judgedRunning(yield* withCountsSoFar(run, lookups), live) : run);
  const count = function* (sql: string): Steps<number> {
    return (yield* get<{ n: number }>(sql))?.n ?? 0;
  };
  const addresses = {} as Record<Lookup, number>;
  for (const l of LOOKUP_LIST) addresses[l.name] = yield* count(`SELECT COUNT(*) AS n FROM ${l.table}`);
  return {
    runs,
    lookups: yield* all<DatabaseStatus["lookups"][number]>(
      `SELECT lookup, status, COUNT(*) AS postcodes, MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest
         FROM lookups GROUP BY lookup, status ORDER BY lookup, status`,
    ),
    failures: yield* all<DatabaseStatus["failures"][number]>(
      `SELECT lookup, COALESCE(last_error, '(no error text)') AS last_error, COUNT(*) AS postcodes
         FROM lookups WHERE status = 'failed' GROUP BY 1, 2 ORDER BY postcodes DESC, lookup, last_error LIMIT 5`,
    ),
    postcodes: yield* count("SELECT COUNT(DISTINCT postcode) AS n FROM lookups"),
    addresses,
    datasets: yield* all<DatabaseStatus["datasets"][number]>(
      "SELECT dataset, COUNT(*) AS postcodes FROM lookups WHERE dataset IS NOT NULL GROUP BY dataset ORDER BY dataset",
    ),
  };
}

/** The newest run still marked running, or null. Counts come from its plan and answers, not its checkpoint. */
export function* runningProgressSteps(): Steps<RunningProgress | null> {
  const run = yield* get<{ id: number; started_at: string; lookups: string; requests: number }>(
    "SELECT id, started_at, lookups, requests FROM runs WHERE state = 'running' ORDER BY id DESC LIMIT 1",
  );
  if (!run) return null;
  const lookups = JSON.parse(run.lookups) as string[];
  const counts = (yield* get<{ postcodes: number; toFetch: number; fetched: number }>(
    `SELECT COUNT(*) AS postcodes,
            (SELECT COUNT(*) FROM run_needs WHERE run_id = @run) AS "toFetch",
            (SELECT COUNT(*) FROM run_needs n JOIN lookups l ON l.postcode = n.postcode AND l.lookup = n.lookup AND l.run_id = n.run_id
              WHERE n.run_id = @run) AS fetched
       FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = @run AND postcode IS NOT NULL) r`,
    { run: run.id },
  ))!;
  const pairs = counts.postcodes * lookups.length;
  return { runId: run.id, startedAt: run.started_at, requests: run.requests, pairs, toFetch: counts.toFetch, fetched: counts.fetched, reused: Math.max(0, pairs - counts.toFetch) };
}

/** A release's stored scale and its evidence, or NULLs in a database from before they were stored (status never migrates). */
function releaseScaleColumns(stored: boolean): string {
  return stored ? "r.scale, r.scale_ratings, r.scale_legacy_ratings" : "NULL AS scale, NULL AS scale_ratings, NULL AS scale_legacy_ratings";
}

type ShownEvidence = Map<string | null, { ratings: number; legacy: number }>;

/**
 * Each mobile release's ratings and those of 1 or 2 among the answers status shows (the newest
 * run's providers; the expired ones hidden), not the stored evidence, which counted every answer
 * stored when the batch recorded it. null without a run.
 */
function* shownScaleEvidenceSteps(d: Dialect): Steps<ShownEvidence | null> {
  const run = yield* get<{ providers: string }>("SELECT providers FROM runs ORDER BY id DESC LIMIT 1");
  let providers: string[];
  try {
    providers = JSON.parse(run?.providers ?? "null") as string[];
  } catch {
    return null;
  }
  if (!Array.isArray(providers) || providers.length === 0) return null;
  // status never migrates: answers stored before their evidence was are counted from their addresses
  const stored = (yield* get(d.columnExists("lookups", STORED_EVIDENCE.ratings))) !== null;
  const rows = yield* all<{ release: string | null; ratings: number | string; legacy: number | string }>(
    scaleEvidenceSql(ALL_MOBILE_POSTCODES, providers, { order: d.byteOrder === "" ? "" : ` ${d.byteOrder}`, stored }),
  );
  return new Map(rows.map((r) => [r.release, { ratings: Number(r.ratings), legacy: Number(r.legacy) }]));
}

/** A mobile release's evidence as status shows it: the shown answers' counts once its scale is recorded. */
function shownScale(r: LookupReleases["releases"][number], shown: ShownEvidence | null): LookupReleases["releases"][number] {
  if (shown === null || r.scale === null) return r;
  const counts = shown.get(r.name);
  return { ...r, scale_ratings: counts?.ratings ?? 0, scale_legacy_ratings: counts?.legacy ?? 0 };
}

/**
 * Per lookup, each release with the answers confirmed on it and the versions first seen in it, and
 * how much of the last run's input is on the newest. Status never migrates: a database from before
 * history has no releases, one from before scales none stored.
 */
export function* releaseStatusSteps(d: Dialect): Steps<LookupReleases[]> {
  if ((yield* get(d.columnExists("releases", "name"))) === null) return [];
  const scaled = (yield* get(d.columnExists("releases", "scale"))) !== null;
  const shown = scaled ? yield* shownScaleEvidenceSteps(d) : null;
  const lastRun = (yield* get<{ id: number | null }>("SELECT MAX(run_id) AS id FROM run_rows"))?.id ?? null;
  const out: LookupReleases[] = [];
  for (const lookup of LOOKUPS) {
    const stored = yield* all<LookupReleases["releases"][number]>(
      `SELECT r.name, r.detected_at, ${releaseScaleColumns(scaled)},
              (SELECT COUNT(*) FROM lookups l WHERE l.lookup = r.lookup AND l.release = r.name) AS answers,
              (SELECT COUNT(*) FROM answer_versions v WHERE v.lookup = r.lookup AND v.release = r.name) AS versions
         FROM releases r WHERE r.lookup = @lookup ORDER BY r.id`,
      { lookup },
    );
    const list = LOOKUP_SPECS[lookup].ratingScale ? stored.map((r) => shownScale(r, shown)) : stored;
    if (list.length === 0) continue;
    const newest = list.at(-1)?.name ?? null;
    const onNewest = () =>
      get<{ postcodes: number; onNewest: number }>(
        `SELECT COUNT(*) AS postcodes, COUNT(CASE WHEN l.release = @newest THEN 1 END) AS "onNewest"
           FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL) r
           LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = @lookup`,
        { newest, runId: lastRun, lookup },
      );
    out.push({ lookup, releases: list, newest, input: lastRun === null ? null : { runId: lastRun, ...(yield* onNewest())! } });
  }
  return out;
}
