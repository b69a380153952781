// Which postcodes a report covers, resolved from the SQLite store: one run's input (by default
// the last run), or everything stored.
import { LOOKUPS, PROVIDER_CODE, type Lookup } from "../../../spec/fields.js";
import { missingProviderColumns, type Db } from "../db.js";
import { readRun, runArg, runIdRange } from "../runs.js";
import { currentOpenData } from "../open-data.js";
import type { Premises } from "../../../spec/open-data.js";
import { ReportError, type ReportScope, type ScopeRequest } from "../../snapshot.js";

export function resolveScope(db: Db, request: ScopeRequest): ReportScope {
  const run = readRun(db, request.runId === undefined || request.all ? "last" : request.runId);
  if (!run) {
    const range = runIdRange(db);
    if (range === null) throw new ReportError("the database holds no runs yet: run a batch first");
    throw new ReportError(`there is no run ${request.runId} in the database (runs ${range.min} to ${range.max} are stored)`);
  }
  const providers = run.providers;
  for (const p of providers)
    if (!PROVIDER_CODE.test(p)) throw new ReportError(`run ${run.id} records an invalid provider code "${p}"`);
  const missing = missingProviderColumns(db, providers);
  if (missing.length > 0)
    throw new ReportError(`the database has no ${missing[0]} column for run ${run.id}'s providers (${providers.join(", ")})`);
  const lookups = request.all ? [...LOOKUPS] : run.lookups.filter((l): l is Lookup => (LOOKUPS as readonly string[]).includes(l));
  return {
    kind: request.all ? "all" : "run",
    runId: run.id,
    lookups,
    providers,
    inputColumns: request.all ? [] : run.inputColumns,
    runSimulated: run.simulated,
    runState: run.state,
    openData: openDataOf(db, run.id),
  };
}

/** The stored open data, with the premises the run chose (--open-data-premises; all by default). */
function openDataOf(db: Db, runId: number): ReportScope["openData"] {
  const current = currentOpenData(db);
  const premises: Premises = runArg(db, runId, "openDataPremises") === "residential" ? "residential" : "all";
  return current ? { id: current.id, month: current.month, revision: current.revision, premises } : null;
}
