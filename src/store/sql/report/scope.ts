// Which postcodes a report covers, resolved inside the snapshot: one run's input (by default the
// last run), or everything stored.
import { LOOKUPS, PROVIDER_CODE, mobileFields, type Lookup } from "../../../contract/fields.js";
import type { Premises } from "../../../contract/open-data.js";
import { ScopeError, type ReportScope, type ScopeRequest } from "../../snapshot.js";
import { readRun, runArg, runIdRange } from "../run-reads.js";
import type { SqlSession } from "../session.js";

export async function resolveScope(q: SqlSession, request: ScopeRequest): Promise<ReportScope> {
  const run = await readRun(q, request.runId === undefined || request.all ? "last" : request.runId);
  if (!run) {
    const range = await runIdRange(q);
    if (range === null) throw new ScopeError("the database holds no runs yet: run a batch first");
    throw new ScopeError(`there is no run ${request.runId} in the database (runs ${range.min} to ${range.max} are stored)`);
  }
  const providers = run.providers;
  for (const p of providers) if (!PROVIDER_CODE.test(p)) throw new ScopeError(`run ${run.id} records an invalid provider code "${p}"`);
  // column names compared in lower case (PostgreSQL folds them, SQLite ignores case); the message names them as the spec does
  const present = new Set((await q.all<{ name: string }>(q.dialect.columnNamesSql("mobile_addresses"))).map((r) => r.name.toLowerCase()));
  const missing = mobileFields(providers).filter((f) => !present.has(f.toLowerCase()));
  if (missing.length > 0) throw new ScopeError(`the database has no ${missing[0]} column for run ${run.id}'s providers (${providers.join(", ")})`);
  const lookups = request.all ? [...LOOKUPS] : run.lookups.filter((l): l is Lookup => (LOOKUPS as readonly string[]).includes(l));
  return {
    kind: request.all ? "all" : "run",
    runId: run.id,
    lookups,
    providers,
    inputColumns: request.all ? [] : run.inputColumns,
    postcodeColumn: request.all ? null : run.postcodeColumn,
    runSimulated: run.simulated,
    runState: run.state,
    openData: await openDataOf(q, run.id),
  };
}

/** The stored open data, with the premises the run chose (--open-data-premises; all by default). */
async function openDataOf(q: SqlSession, runId: number): Promise<ReportScope["openData"]> {
  // a database of an older schema has no open data (a reader never migrates)
  const tables = await q.all<{ name: string }>(q.dialect.tableNamesSql);
  if (!tables.some((t) => t.name === "open_data_imports")) return null;
  const current = await q.get<{ id: number; month: string; revision: number }>("SELECT id, month, revision FROM open_data_imports ORDER BY id DESC LIMIT 1");
  const premises: Premises = (await runArg(q, runId, "openDataPremises")) === "residential" ? "residential" : "all";
  return current ? { id: current.id, month: current.month, revision: current.revision, premises } : null;
}
