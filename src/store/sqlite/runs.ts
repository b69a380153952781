// The runs table's SQL (src/store/sql/runs.ts, run-reads.ts) run synchronously on the handle: for
// SQLite's own tests and the benchmarks' builders, which make a database by hand. The store's own
// members run it through the session (sqlite-store.ts).
import type { Db } from "./db.js";
import type { NewRun, RunEnd } from "../types.js";
import type { Lookup } from "../../contract/fields.js";
import { finalCountsSteps } from "../sql/run-reads.js";
import { abandonOrphansSteps, createRunSteps, finishRunSteps, setRunInputSteps } from "../sql/runs.js";
import { SQLITE_DIALECT } from "./dialect.js";
import { runStepsNow } from "./transact.js";

export type { NewRun, RunCounts, RunFacts, RunInfo, RunState } from "../types.js";

export const createRun = (db: Db, run: NewRun) => db.transaction(() => runStepsNow(db, createRunSteps(run)))();
export const setRunInput = (db: Db, runId: number, columns: readonly string[], postcodeColumn: string) => runStepsNow(db, setRunInputSteps(runId, columns, postcodeColumn));
export const finishRun = (db: Db, runId: number, end: RunEnd) => runStepsNow(db, finishRunSteps(runId, end));
export const abandonOrphans = (db: Db, at: string, live: ReadonlySet<number>) =>
  db.transaction(() => runStepsNow(db, abandonOrphansSteps(SQLITE_DIALECT, at, live))).immediate();
export const finalCounts = (db: Db, runId: number, lookups: readonly Lookup[]) => runStepsNow(db, finalCountsSteps(runId, lookups));
