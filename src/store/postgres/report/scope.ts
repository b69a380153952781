// Which postcodes a report covers, resolved inside the PostgreSQL snapshot (as the SQLite engine's
// report/scope.ts does): one run's input (by default the last run), or everything stored.
import { LOOKUPS, mobileFields, PROVIDER_CODE, type Lookup } from "../../../spec/fields.js";
import type { Premises } from "../../../spec/open-data.js";
import { ReportError, type ReportScope, type ScopeRequest } from "../../snapshot.js";
import { rowOf, rowsOf, type Queryable } from "../connect.js";

interface RunRow {
  id: number;
  state: string;
  simulated: number;
  input_columns: string;
  lookups: string;
  providers: string;
  args: string;
}

function list(text: string, what: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  } catch {
    // reported below
  }
  throw new ReportError(`${what} are not readable in the database`);
}

export async function resolveScope(q: Queryable, request: ScopeRequest): Promise<ReportScope> {
  const select = "SELECT id, state, simulated, input_columns, lookups, providers, args FROM runs";
  const last = request.runId === undefined || request.all;
  const run = await rowOf<RunRow>(q, last ? `${select} WHERE state <> 'failed' OR input_rows > 0 ORDER BY id DESC LIMIT 1` : `${select} WHERE id = $1`, last ? [] : [request.runId]);
  if (!run) {
    const range = await rowOf<{ min: number | null; max: number | null }>(q, "SELECT MIN(id) AS min, MAX(id) AS max FROM runs");
    if (range?.min == null || range.max == null) throw new ReportError("the database holds no runs yet: run a batch first");
    throw new ReportError(`there is no run ${request.runId} in the database (runs ${range.min} to ${range.max} are stored)`);
  }
  const providers = list(run.providers, `run ${run.id}'s providers`);
  for (const p of providers) if (!PROVIDER_CODE.test(p)) throw new ReportError(`run ${run.id} records an invalid provider code "${p}"`);
  const present = new Set(
    (await rowsOf<{ name: string }>(q, "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'mobile_addresses'")).map((r) => r.name),
  );
  // columns are stored in lower case (schema.ts); the message names them as the spec does
  const missing = mobileFields(providers).filter((f) => !present.has(f.toLowerCase()));
  if (missing.length > 0) throw new ReportError(`the database has no ${missing[0]} column for run ${run.id}'s providers (${providers.join(", ")})`);
  const runLookups = list(run.lookups, `run ${run.id}'s lookups`);
  const lookups = request.all ? [...LOOKUPS] : runLookups.filter((l): l is Lookup => (LOOKUPS as readonly string[]).includes(l));
  return {
    kind: request.all ? "all" : "run",
    runId: run.id,
    lookups,
    providers,
    inputColumns: request.all ? [] : list(run.input_columns, `run ${run.id}'s input columns`),
    runSimulated: run.simulated === 1,
    runState: run.state,
    openData: await openDataOf(q, run.args),
  };
}

/** The stored open data, with the premises the run chose (--open-data-premises; all by default). */
async function openDataOf(q: Queryable, args: string): Promise<ReportScope["openData"]> {
  const current = await rowOf<{ id: number; month: string; revision: number }>(q, "SELECT id, month, revision FROM open_data_imports ORDER BY id DESC LIMIT 1");
  let premises: Premises = "all";
  try {
    if ((JSON.parse(args) as Record<string, unknown>).openDataPremises === "residential") premises = "residential";
  } catch {
    // unreadable arguments: all premises, as SQLite's runArg reads them
  }
  return current ? { id: current.id, month: current.month, revision: current.revision, premises } : null;
}
